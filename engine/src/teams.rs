//! App teams told (`domain::teams`): which team each namespace names, and each node's pods by team. The
//! namespaces are followed with the server's own identity, their metadata alone (a namespace's annotation picks
//! who is told, never what is done, so no person's rights are needed to read it); the pods come from the shared
//! cache. Only a name some webhook has counts: any other tells nobody.

use std::collections::BTreeMap;

use domain::{capacity::Fate, teams::TeamPods};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use kube::{
    Api, Client,
    core::PartialObjectMeta,
    runtime::{WatchStreamExt, reflector, watcher},
};

use crate::cache::ClusterCache;

/// The namespaces, as far as their annotation goes.
#[derive(Clone)]
pub struct Teams {
    store: reflector::Store<PartialObjectMeta<Namespace>>,
}

impl Teams {
    /// Follows every namespace's metadata with `client` (the server's own) under `tasks`. A server that may not
    /// list them tells no team, and says so in its log.
    pub fn follow(client: Client, tasks: &crate::tasks::Tasks) -> Self {
        // An `Api` of partial objects lists and watches the metadata alone.
        let api: Api<PartialObjectMeta<Namespace>> = Api::all(client);
        let (store, writer) = reflector::store();
        let events = watcher(api, watcher::Config::default())
            .default_backoff()
            .modify(|n: &mut PartialObjectMeta<Namespace>| n.metadata.managed_fields = None)
            .reflect(writer);
        let shutdown = tasks.shutdown_signal().clone();
        tasks.spawn(async move {
            let mut events = std::pin::pin!(events);
            let mut warned = false;
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    event = events.next() => match event {
                        None => break,
                        Some(Err(err)) if !warned => {
                            warned = true;
                            tracing::warn!(error = %err, "the namespaces cannot be listed: no app team is told until they can (grant list and watch on namespaces)");
                        }
                        Some(Ok(watcher::Event::InitDone)) => warned = false,
                        Some(_) => {}
                    },
                }
            }
        });
        Teams { store }
    }

    /// The team `namespace` names, if it reads as a name and `known` has a webhook for it.
    pub fn team_of(&self, namespace: &str, known: impl Fn(&str) -> bool) -> Option<String> {
        let ns = self.store.get(&reflector::ObjectRef::new(namespace))?;
        let value = ns.metadata.annotations.as_ref()?.get(domain::teams::ANNOTATION)?;
        let team = domain::teams::name(value).ok()?;
        known(team).then(|| team.to_owned())
    }

    /// Each team's pods on `node` that its drain would evict (not a DaemonSet's, a mirror or a finished pod).
    pub fn pods_by_team(
        &self,
        cache: &ClusterCache,
        node: &str,
        known: impl Fn(&str) -> bool,
    ) -> BTreeMap<String, TeamPods> {
        let pods = cache.pods_on(node);
        let evicted = pods.iter().filter(|p| p.fate() != Fate::Stays).map(|p| (p.namespace(), p.key()));
        domain::teams::group(evicted, |namespace| self.team_of(namespace, &known))
    }
}
