//! How long a drain or a plan should take, estimated before it starts (`domain::estimate`): the pods a drain
//! would evict read from the caller's cache as they see the cluster, the server's pace, and what the durable
//! history says pods took to stop in past drains.

use domain::{
    drain::DrainOptions,
    estimate::{Estimate, Forecast, NoEstimate, PlanEstimate, Shape},
    preview::{Timing, preview},
    rollout::RolloutOptions,
};

use super::{Acting, Engine};
use crate::{Error, Result};

impl Engine {
    /// Who last uncordoned `node`, when and why, as its history says (a claim: for showing only).
    pub(crate) fn last_uncordon(&self, node: &str) -> Option<domain::plan_step::Uncordon> {
        self.recent.as_ref().and_then(|r| r.last_uncordon(node))
    }

    /// The server's side of an estimate for `nodes`: its pace, and what their past drains (or, lacking any, the
    /// other nodes') saw pods take to stop.
    pub fn timing(&self, nodes: &[&str]) -> Timing {
        Timing { pace: self.drains.pace(), learned: self.recent.as_ref().and_then(|r| r.learned(nodes)) }
    }
}

impl Acting<'_> {
    /// [`Engine::timing`] as the caller may see it: what past drains taught comes from the history, which the
    /// server reads with its own identity, so it is shown only to a person [`Self::sight`] shows the history to;
    /// anyone else's estimate rests on the grace periods alone.
    pub(crate) async fn timing(&self, nodes: &[&str]) -> Timing {
        let mut timing = self.engine.timing(nodes);
        if !matches!(self.sight().await, Ok(Some(_))) {
            timing.learned = None;
        }
        timing
    }

    /// What drains of `nodes` with `options` would evict, as the estimate reads it from the caller's cache (one
    /// view for all of them).
    async fn forecasts(&self, nodes: &[&str], options: &DrainOptions) -> Result<Vec<Forecast>> {
        let (cache, visibility) = self.view().await?;
        cache.ready_for_request().await?;
        nodes
            .iter()
            .map(|node| {
                if !cache.has_node(node) {
                    return Err(Error::NotFound(super::no_such_node(node)));
                }
                let inputs = visibility.preview(crate::drain::cached_inputs(&cache, node));
                preview(&inputs, options).map(|p| p.forecast).map_err(|e| Error::Invalid(e.to_string()))
            })
            .collect()
    }

    /// A single drain's estimate, made before it starts; `None` when there is none (a budget that never allows,
    /// say: the preview said so already).
    pub(crate) async fn estimate_drain(&self, node: &str, options: &DrainOptions) -> Option<Estimate> {
        let forecast = self.forecasts(&[node], options).await.ok()?.pop()?;
        let timing = self.timing(&[node]).await;
        domain::estimate::drain(&forecast, timing.pace, options.limits(), timing.learned.as_ref()).ok()
    }

    /// A plan's estimate over `nodes` in their order, as the caller sees the cluster: what the plan dialog shows,
    /// and what a plan records as it starts.
    pub async fn estimate_plan(
        &self,
        nodes: &[String],
        options: &RolloutOptions,
    ) -> Result<std::result::Result<PlanEstimate, NoEstimate>> {
        let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
        let forecasts = self.forecasts(&names, &options.drain).await?;
        let timing = self.timing(&names).await;
        let shape = Shape {
            max_parallel: options.max_parallel,
            settle_seconds: options.settle_seconds,
            pace: timing.pace,
            limits: options.drain.limits(),
            reboots: options.reboots(),
        };
        let mut estimate = domain::estimate::plan(&forecasts, shape, timing.learned.as_ref());
        // The windows are read with the server's identity: named only to those who may read them.
        if let Ok(estimate) = &mut estimate
            && self.reads_windows().await
        {
            estimate.window = self.engine.window_closing(&names).await;
        }
        Ok(estimate)
    }
}
