//! The pods as the cache keeps them: not the API's `Pod`, whose structs keep every optional field inline (2.4 KB
//! before any text, 2.1 KB more per container), but what the cards, the drain preview and the capacity check read,
//! converted once as each watch event arrives.

use std::{
    borrow::Cow,
    collections::{BTreeMap, HashSet},
    hash::Hash,
    sync::Arc,
};

use domain::{
    PodSummary,
    capacity::{self, Fate, PodNeeds},
    pod::{ControllerRef, PodPhase, Toleration, pod_key},
};
use k8s_openapi::api::core::v1::Pod;
use kube::runtime::reflector::Lookup;
use parking_lot::Mutex;

/// One cached pod: its drain summary and its scheduling needs, under the name and namespace the store keys it by.
/// What many pods have alike (a namespace, a ReplicaSet's owner reference and labels, the default tolerations) is
/// held once, in [`Shared`]. It keeps no `ObjectMeta`: the store finds it through [`Lookup`], so the 360 bytes of
/// that struct's empty fields are not paid 150,000 times.
#[derive(Clone, Debug, PartialEq)]
pub struct CachedPod {
    namespace: Arc<String>,
    name: Box<str>,
    /// Without the namespace, name, owner, labels and tolerations, which are held apart.
    summary: PodSummary,
    controller: Option<Arc<ControllerRef>>,
    labels: Arc<BTreeMap<String, String>>,
    tolerations: Arc<Vec<Toleration>>,
    /// Without the namespace, name and tolerations.
    needs: PodNeeds,
    /// What becomes of the pod when its node is drained, decided once: it reads the owner held apart.
    fate: Fate,
    /// The persistent volume claims it mounts, by name (most pods have none): what the readiness check matches
    /// against the local volumes bound to a node.
    claims: Box<[Box<str>]>,
}

impl CachedPod {
    /// Converts `pod` as a watch event brings it, sharing what other pods have alike through `shared`.
    pub fn new(pod: Pod, shared: &Shared) -> Self {
        let mut summary = PodSummary::from(&pod);
        let fate = capacity::fate(&summary);
        let needs =
            PodNeeds { namespace: String::new(), name: String::new(), tolerations: Vec::new(), ..PodNeeds::from(&pod) };
        let claims = pod
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .filter_map(|v| v.persistent_volume_claim.as_ref())
            .map(|c| c.claim_name.as_str().into())
            .collect();
        CachedPod {
            namespace: shared.namespaces.get(std::mem::take(&mut summary.namespace)),
            name: std::mem::take(&mut summary.name).into_boxed_str(),
            controller: summary.controller.take().map(|owner| shared.controllers.get(owner)),
            labels: shared.labels.get(std::mem::take(&mut summary.labels)),
            tolerations: shared.tolerations.get(std::mem::take(&mut summary.tolerations)),
            summary,
            needs,
            fate,
            claims,
        }
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// `namespace/name`.
    pub fn key(&self) -> String {
        pod_key(self.namespace(), self.name())
    }

    /// The node the pod is bound to.
    pub fn node(&self) -> Option<&str> {
        self.summary.node_name.as_deref()
    }

    pub fn phase(&self) -> PodPhase {
        self.summary.phase
    }

    pub fn tolerations(&self) -> &[Toleration] {
        &self.tolerations
    }

    /// The owner reference marked as its controller.
    pub fn controller(&self) -> Option<&domain::pod::ControllerRef> {
        self.controller.as_deref()
    }

    pub fn labels(&self) -> &BTreeMap<String, String> {
        &self.labels
    }

    /// The persistent volume claims it mounts, by name.
    pub fn claims(&self) -> impl Iterator<Item = &str> {
        self.claims.iter().map(|c| &**c)
    }

    /// What becomes of the pod when its node is drained.
    pub fn fate(&self) -> Fate {
        self.fate
    }

    /// The pod as the drain reads it, whole.
    pub fn summary(&self) -> PodSummary {
        PodSummary {
            namespace: self.namespace().to_string(),
            name: self.name().to_string(),
            controller: self.controller.as_deref().cloned(),
            labels: (*self.labels).clone(),
            tolerations: (*self.tolerations).clone(),
            ..self.summary.clone()
        }
    }

    /// The pod's requests and scheduling rules without its name and tolerations: enough for the room it takes on
    /// its node ([`domain::capacity::NodeRoom::take`]), without copying anything.
    pub fn requests(&self) -> &PodNeeds {
        &self.needs
    }

    /// What the capacity check reads of this pod, whole.
    pub fn needs(&self) -> PodNeeds {
        PodNeeds {
            namespace: self.namespace().to_string(),
            name: self.name().to_string(),
            tolerations: (*self.tolerations).clone(),
            ..self.needs.clone()
        }
    }
}

/// Values many pods of a cache have alike, each held once: namespaces, owner references and label sets (every pod of
/// a ReplicaSet has the same) and toleration lists (most pods have only the two the API server adds). Values no pod holds any more are let go now
/// and then.
#[derive(Default)]
pub struct Shared {
    namespaces: Interned<String>,
    controllers: Interned<ControllerRef>,
    labels: Interned<BTreeMap<String, String>>,
    tolerations: Interned<Vec<Toleration>>,
}

/// One set of shared values.
struct Interned<T> {
    values: Mutex<(HashSet<Arc<T>>, usize)>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned { values: Mutex::new((HashSet::new(), 0)) }
    }
}

/// After this many new values, those no pod holds are let go.
const SWEEP_EVERY: usize = 4096;

impl<T: Hash + Eq> Interned<T> {
    fn get(&self, value: T) -> Arc<T> {
        let mut guard = self.values.lock();
        let (values, added) = &mut *guard;
        if let Some(found) = values.get(&value) {
            return found.clone();
        }
        *added += 1;
        if *added % SWEEP_EVERY == 0 {
            values.retain(|v| Arc::strong_count(v) > 1);
        }
        let value = Arc::new(value);
        values.insert(value.clone());
        value
    }
}

/// How the reflector's store keys a cached pod: by its namespace and name, like any pod, without an `ObjectMeta`.
/// No resource version or uid: the store would copy them into every key, and nothing looks pods up by them.
impl Lookup for CachedPod {
    type DynamicType = ();

    fn kind(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("Pod")
    }

    fn group(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn version(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("v1")
    }

    fn plural(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("pods")
    }

    fn name(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(&self.name))
    }

    fn namespace(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(&self.namespace))
    }

    fn resource_version(&self) -> Option<Cow<'_, str>> {
        None
    }

    fn uid(&self) -> Option<Cow<'_, str>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_pod_reads_the_same_to_the_drain_and_the_capacity_check() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "labels": {"app": "web"},
                         "resourceVersion": "42",
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "r", "controller": true}]},
            "spec": {
                "nodeName": "n1",
                "containers": [{"name": "app", "image": "web:1", "env": [{"name": "A", "value": "b"}],
                                "ports": [{"containerPort": 9100, "hostPort": 9100}],
                                "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}}],
                "initContainers": [{"name": "init", "image": "x", "resources": {"requests": {"cpu": "2"}}}],
                "nodeSelector": {"disk": "ssd"},
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "volumes": [{"name": "scratch", "emptyDir": {}}, {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
            },
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        }))
        .unwrap();
        let shared = Shared::default();
        let cached = CachedPod::new(pod.clone(), &shared);
        assert_eq!(cached.summary(), PodSummary::from(&pod));
        assert_eq!(cached.needs(), PodNeeds::from(&pod));
        assert_eq!(cached.node(), Some("n1"));
        assert_eq!(cached.key(), "shop/web-1");
        assert_eq!(cached.fate(), capacity::fate(&PodSummary::from(&pod)));
        let key = cached.to_object_ref(());
        assert_eq!((key.name.as_str(), key.namespace.as_deref()), ("web-1", Some("shop")), "keyed as the pod is");

        // A second pod of the same ReplicaSet shares its labels and tolerations.
        let mut twin = pod.clone();
        twin.metadata.name = Some("web-2".into());
        let twin = CachedPod::new(twin, &shared);
        assert!(Arc::ptr_eq(&cached.labels, &twin.labels) && Arc::ptr_eq(&cached.tolerations, &twin.tolerations));
        assert!(Arc::ptr_eq(&cached.namespace, &twin.namespace));
        assert!(Arc::ptr_eq(cached.controller.as_ref().unwrap(), twin.controller.as_ref().unwrap()));
        assert_eq!(twin.summary().name, "web-2");
    }

    #[test]
    fn shared_values_no_pod_holds_are_let_go() {
        let interned = Interned::<Vec<u32>>::default();
        let kept = interned.get(vec![0]);
        for i in 1..=(2 * SWEEP_EVERY as u32) {
            drop(interned.get(vec![i]));
        }
        let held = interned.values.lock().0.len();
        assert!(held < SWEEP_EVERY + 1, "{held} values held");
        assert!(Arc::ptr_eq(&kept, &interned.get(vec![0])), "a value a pod holds stays shared");
    }
}
