//! Helpers for tests against the local control plane that the test command starts.
#![allow(dead_code)] // each test binary uses its own subset

use std::{
    process::Command,
    time::{Duration, Instant},
};

use domain::{drain::DrainOptions, progress::DrainProgress};
use engine::{
    Identity,
    access::{self, Connected},
    cache::ClusterCaches,
    drain::DrainRegistry,
    tasks::Tasks,
};
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use kube::{
    Api, Client,
    api::{DeleteParams, ListParams, PostParams},
};
use serde_json::{Value, json};

pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run these tests through ./test-all"))
}

pub async fn connect() -> Connected {
    let kubeconfig = std::path::PathBuf::from(env("DRAINBOARD_CLUSTER_DIR")).join("admin.kubeconfig");
    access::connect(Some(&kubeconfig), None).await.expect("the local control plane answers")
}

/// Tasks for one test, on the test's runtime.
pub fn tasks() -> Tasks {
    Tasks::new(tokio::runtime::Handle::current())
}

/// A drain registry as a server holds one.
pub fn registry() -> DrainRegistry {
    DrainRegistry::new(&tasks(), Default::default())
}

/// Caches that stop their watches as soon as the last holder lets go.
pub fn caches() -> ClusterCaches {
    ClusterCaches::new(&tasks(), Duration::ZERO)
}

/// Runs the pinned kubectl against the test cluster; returns (success, stdout, stderr).
pub fn kubectl(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(format!("{}/kubectl", env("DRAINBOARD_CLUSTER_BIN")))
        .args(["--kubeconfig", &format!("{}/admin.kubeconfig", env("DRAINBOARD_CLUSTER_DIR"))])
        .args(args)
        .output()
        .expect("kubectl runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Polls `check` every 200 ms until it returns Some, or fails the test after `limit`.
pub async fn eventually<T, F, Fut>(what: &str, limit: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    eventually_timed(what, limit, check).await.0
}

/// `eventually`, also saying how long it took (printed, and returned).
pub async fn eventually_timed<T, F, Fut>(what: &str, limit: Duration, mut check: F) -> (T, Duration)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            eprintln!("{what}: {:?}", start.elapsed());
            return (v, start.elapsed());
        }
        assert!(start.elapsed() < limit, "timed out after {limit:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The local control plane's `cluster.sh`.
pub const HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../end2end/cluster/cluster.sh");

/// Runs `cluster.sh` with `args`.
pub fn harness(args: &[&str]) {
    let status = Command::new(HARNESS).args(args).status().expect("cluster.sh runs");
    assert!(status.success(), "cluster.sh {args:?} failed");
}

/// The taint that reserves a scenario's nodes for its own pods.
pub const TEST_TAINT: &str = "drainboard.dev/test";

/// A kwok node and a namespace of its own, so that tests can run side by side. Removed on drop.
pub struct Scenario {
    pub client: Client,
    pub identity: Identity,
    pub node: String,
    pub namespace: String,
}

impl Scenario {
    pub async fn new(name: &str) -> Scenario {
        let connected = connect().await;
        let client = connected.client;
        let node = format!("drain-{name}");
        create_node(&client, &node, name).await;
        let namespace = format!("t-{name}");
        let namespaces: Api<Namespace> = Api::all(client.clone());
        let _ = namespaces.delete(&namespace, &DeleteParams::default()).await;
        // An earlier run killed before its cleanup may have left held pods that keep the namespace alive.
        release_holds(&namespace);
        eventually(&format!("old namespace {namespace} gone"), Duration::from_secs(60), || async {
            namespaces.get_opt(&namespace).await.unwrap().is_none().then_some(())
        })
        .await;
        namespaces
            .create(&PostParams::default(), &serde_json::from_value(json!({"metadata": {"name": namespace}})).unwrap())
            .await
            .unwrap();
        eventually("the default service account", Duration::from_secs(30), || async {
            let sa: Api<k8s_openapi::api::core::v1::ServiceAccount> = Api::namespaced(client.clone(), &namespace);
            sa.get_opt("default").await.unwrap().map(|_| ())
        })
        .await;
        Scenario { client, identity: connected.identity, node, namespace }
    }

    /// Adds a second node to the scenario's pool, for replacements to land on while the first is drained.
    pub async fn add_spare_node(&self) -> String {
        let spare = format!("{}-spare", self.node);
        create_node(&self.client, &spare, self.node.trim_start_matches("drain-")).await;
        spare
    }

    /// Creates any namespaced object from JSON in the scenario's namespace, through kubectl.
    pub fn apply(&self, manifest: Value) {
        let text = serde_json::to_string(&manifest).unwrap();
        let mut child = Command::new(format!("{}/kubectl", env("DRAINBOARD_CLUSTER_BIN")))
            .args(["--kubeconfig", &format!("{}/admin.kubeconfig", env("DRAINBOARD_CLUSTER_DIR"))])
            .args(["apply", "-n", &self.namespace, "-f", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success(), "kubectl apply {text}");
    }

    /// A pod template pinned to the scenario's node.
    pub fn pinned_spec(&self, extra: Value) -> Value {
        let mut spec = json!({
            "nodeSelector": {"drainboard.dev/pool": self.node.trim_start_matches("drain-")},
            "tolerations": [{"key": TEST_TAINT, "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": "c", "image": "nginx:1.27"}]
        });
        merge(&mut spec, extra);
        spec
    }

    pub fn bare_pod(&self, name: &str, extra_spec: Value) {
        self.pod(name, json!({}), extra_spec);
    }

    /// A pod pinned to the node, with `extra_metadata` (owner references, finalizers) merged into its metadata.
    pub fn pod(&self, name: &str, extra_metadata: Value, extra_spec: Value) {
        let mut metadata = json!({"name": name, "labels": {"app": name}});
        merge(&mut metadata, extra_metadata);
        let spec = self.pinned_spec(extra_spec);
        self.apply(json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}));
    }

    /// A bare pod whose deletion is held by [`HOLD_FINALIZER`]: once deleted, it stays terminating on the node
    /// until [`Scenario::release_holds`] (or the scenario's drop).
    pub fn held_pod(&self, name: &str, extra_spec: Value) {
        self.pod(name, json!({"finalizers": [HOLD_FINALIZER]}), extra_spec);
    }

    /// Lets every held pod and DaemonSet of the namespace go.
    pub fn release_holds(&self) {
        release_holds(&self.namespace);
    }

    /// Sets a pod's phase through its status, as a kubelet reports a finished pod (kwok finishes only Job pods).
    pub async fn set_phase(&self, pod: &str, phase: &str) {
        let patch = json!({"status": {"phase": phase}});
        self.pods()
            .patch_status(pod, &kube::api::PatchParams::default(), &kube::api::Patch::Merge(patch))
            .await
            .unwrap();
    }

    pub fn daemonset(&self, name: &str) {
        let spec = self.pinned_spec(json!({}));
        self.apply(json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}
        }));
    }

    pub fn deployment(&self, name: &str, replicas: i32, extra_spec: Value) {
        let spec = self.pinned_spec(extra_spec);
        self.apply(json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}
        }));
    }

    pub fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// Names of the scenario's pods on its node that are not terminating.
    pub async fn pods_on_node(&self) -> Vec<String> {
        let list =
            self.pods().list(&ListParams::default().fields(&format!("spec.nodeName={}", self.node))).await.unwrap();
        let mut names: Vec<_> = list
            .items
            .into_iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter_map(|p| p.metadata.name)
            .collect();
        names.sort();
        names
    }

    /// Waits until `n` pods of the namespace run and are Ready on the node.
    pub async fn wait_running(&self, n: usize) {
        eventually(&format!("{n} running pods"), Duration::from_secs(60), || async {
            let list = self.pods().list(&ListParams::default()).await.unwrap();
            let ready = list
                .items
                .iter()
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .filter(|p| {
                    let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
                    phase == Some("Succeeded")
                        || p.status
                            .as_ref()
                            .and_then(|s| s.conditions.as_ref())
                            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
                })
                .count();
            (ready == n).then_some(())
        })
        .await;
    }

    /// Whether kwok simulates the node (runs its pods, finishes their deletion, renews its Lease).
    pub async fn set_simulated(&self, on: bool) {
        let value = if on { json!("fake") } else { json!(null) };
        let patch = json!({"metadata": {"labels": {"kwok.x-k8s.io/node": value}}});
        Api::<Node>::all(self.client.clone())
            .patch(&self.node, &kube::api::PatchParams::default(), &kube::api::Patch::Merge(patch))
            .await
            .unwrap();
    }

    pub async fn unschedulable(&self) -> bool {
        let node = Api::<Node>::all(self.client.clone()).get(&self.node).await.unwrap();
        node.spec.and_then(|s| s.unschedulable).unwrap_or(false)
    }

    pub async fn uncordon(&self) {
        engine::drain::ops::set_unschedulable(&self.client, &self.node, false, Default::default(), None).await.unwrap();
    }

    /// Starts a drain through the registry (the code behind the server function) and returns its id.
    pub fn start(&self, registry: &DrainRegistry, options: DrainOptions) -> String {
        registry.start(self.client.clone(), &self.identity, self.node.clone(), options, Some("test".into())).unwrap().id
    }

    /// Runs a drain to its end and returns the final progress.
    pub async fn drain(&self, options: DrainOptions) -> DrainProgress {
        let registry = registry();
        let id = self.start(&registry, options);
        finish(&registry, &id, Duration::from_secs(90)).await
    }
}

impl Scenario {
    /// A Deployment `web` of 2 guarded by a PDB `web-pdb` that needs both: every eviction is refused until it grows.
    pub async fn guarded_web(&self) {
        self.deployment("web", 2, json!({}));
        self.apply(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web-pdb"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}));
        self.wait_running(2).await;
        self.wait_pdb("web-pdb", 0).await;
    }

    /// Waits until the disruption controller has processed the PDB and it allows `allowed` disruptions.
    pub async fn wait_pdb(&self, name: &str, allowed: i32) {
        let pdbs: Api<k8s_openapi::api::policy::v1::PodDisruptionBudget> =
            Api::namespaced(self.client.clone(), &self.namespace);
        eventually(&format!("{name} to allow {allowed}"), Duration::from_secs(30), || async {
            let pdb = pdbs.get(name).await.ok()?;
            let status = pdb.status?;
            (status.observed_generation.is_some()
                && status.observed_generation >= pdb.metadata.generation
                && status.disruptions_allowed == Some(allowed))
            .then_some(())
        })
        .await;
    }
}

/// The finalizer that holds a test object's deletion until the test lets it go.
pub const HOLD_FINALIZER: &str = "drainboard.dev/hold";

/// Removes the finalizers of every pod and DaemonSet of `namespace` that has some, so that they can go.
pub fn release_holds(namespace: &str) {
    let held = "jsonpath={range .items[?(@.metadata.finalizers)]}{.kind}/{.metadata.name}{\"\\n\"}{end}";
    let (_, out, _) = kubectl(&["get", "pods,daemonsets", "-n", namespace, "-o", held]);
    for object in out.lines().filter(|l| !l.is_empty()) {
        let patch = r#"{"metadata":{"finalizers":null}}"#;
        let _ = kubectl(&["patch", "-n", namespace, &object.to_lowercase(), "--type=merge", "-p", patch]);
    }
}

/// A client that acts as `user`, impersonated by the admin (who is in system:masters), allowed no more than `rules`
/// through a ClusterRole bound to that user. The role and binding are removed on drop.
pub struct Impersonated {
    pub client: Client,
    pub identity: Identity,
    name: String,
}

pub async fn impersonating(user: &str, rules: Value) -> Impersonated {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    let admin = connect().await.client;
    let name = format!("drainboard-test-{user}");
    let roles: Api<ClusterRole> = Api::all(admin.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(admin.clone());
    let _ = bindings.delete(&name, &DeleteParams::default()).await;
    let _ = roles.delete(&name, &DeleteParams::default()).await;
    let role = json!({"metadata": {"name": name}, "rules": rules});
    roles.create(&PostParams::default(), &serde_json::from_value(role).unwrap()).await.expect("role created");
    let binding = json!({"metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]});
    bindings.create(&PostParams::default(), &serde_json::from_value(binding).unwrap()).await.expect("binding created");

    let path = std::path::PathBuf::from(env("DRAINBOARD_CLUSTER_DIR")).join("admin.kubeconfig");
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
    config.auth_info.impersonate = Some(user.into());
    config.default_retry = false; // as engine::access::connect
    let identity = Identity::operator(config.cluster_url.to_string(), user);
    let client = Client::try_from(config).unwrap();
    // The authorizer reads RBAC from its own cache: wait until the binding is in force.
    eventually(&format!("{name} in force"), Duration::from_secs(30), || async {
        engine::authz::may(&client, "get", "", "nodes", None).await.ok()?.then_some(())
    })
    .await;
    Impersonated { client, identity, name }
}

impl Drop for Impersonated {
    fn drop(&mut self) {
        let _ = kubectl(&["delete", "clusterrolebinding,clusterrole", &self.name, "--wait=false"]);
    }
}

/// Waits for a drain to end; returns its final progress.
pub async fn finish(registry: &DrainRegistry, id: &str, limit: Duration) -> DrainProgress {
    let mut rx = registry.subscribe(id).expect("drain registered");
    tokio::time::timeout(limit, rx.wait_for(|p| !p.state.is_running()))
        .await
        .unwrap_or_else(|_| panic!("drain still running after {limit:?}: {:?}", registry.progress(id)))
        .expect("progress channel open")
        .clone()
}

/// Creates a kwok-managed node in `pool` and waits until it is Ready.
async fn create_node(client: &Client, node: &str, pool: &str) {
    let nodes: Api<Node> = Api::all(client.clone());
    let _ = nodes.delete(node, &DeleteParams::default()).await;
    eventually(&format!("old {node} gone"), Duration::from_secs(30), || async {
        nodes.get_opt(node).await.unwrap().is_none().then_some(())
    })
    .await;
    let manifest: Node = serde_json::from_value(json!({
        "metadata": {"name": node, "labels": {
            "kwok.x-k8s.io/node": "fake", "kubernetes.io/hostname": node,
            "topology.kubernetes.io/zone": "zone-test", "drainboard.dev/pool": pool
        }},
        // Keeps everything but the scenario's own pods (the seed's DaemonSet, say) off the node.
        "spec": {"taints": [{"key": TEST_TAINT, "value": "true", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "250"},
                   "capacity": {"cpu": "32", "memory": "128Gi", "pods": "250"}}
    }))
    .unwrap();
    nodes.create(&PostParams::default(), &manifest).await.expect("test node created");
    eventually(&format!("{node} Ready"), Duration::from_secs(30), || async {
        let n = nodes.get(node).await.ok()?;
        n.status?.conditions?.iter().any(|c| c.type_ == "Ready" && c.status == "True").then_some(())
    })
    .await;
}

impl Drop for Scenario {
    fn drop(&mut self) {
        // Best effort, also while unwinding: let held objects go, remove the nodes (their pods go with them) and the
        // namespace.
        release_holds(&self.namespace);
        let _ = kubectl(&[
            "delete",
            "node",
            "-l",
            &format!("drainboard.dev/pool={}", self.node.trim_start_matches("drain-")),
            "--wait=false",
        ]);
        let _ = kubectl(&["delete", "namespace", &self.namespace, "--wait=false"]);
    }
}

fn merge(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            for (k, v) in e {
                merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, e) => *b = e,
    }
}
