//! Property test: the server functions' decoders, behind the whole router (guard, limits, error mapping), answer
//! every body with a status and never panic. The engine points at an address where nothing listens, so a request
//! that decodes and validates fails fast with 503 instead of changing anything anywhere.

use std::time::Duration;

use axum::{Router, body::Body, http::Request};
use domain::board::BoardSettings;
use engine::{Engine, Identity, KubeAccess, access::Connected, drain::DrainLimits, tasks::Tasks};
use proptest::prelude::*;
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::{events::StreamLimits, guard::AllowedHosts, web};

const ENDPOINTS: &[&str] = &[
    "nodes/cordon",
    "nodes/uncordon",
    "drains/start",
    "drains/status",
    "drains/cancel",
    "drains/unblock",
    "drains/move-first",
    "drains/resume",
    "drains/preview",
    "drains/preview-inputs",
    "board",
    "permissions",
    "nodes/history",
    "session/sign-in",
    "session/sign-out",
    "session/me",
    "plans/start",
    "plans/estimate",
    "windows",
    "plans/status",
    "plans/cancel",
    "plans/pause",
    "plans/back",
    "plans/continue",
    "plans/undo",
    "plans",
    "capacity",
    "readiness",
];

fn router() -> Router {
    router_with(leptos::config::LeptosOptions::builder().output_name("drainboard").build())
}

/// The whole router, for `options`' site, with an engine whose API server is unreachable.
pub(crate) fn router_with(options: leptos::config::LeptosOptions) -> Router {
    router_over(options, false)
}

/// The address of an API server where nothing listens: the server's tests that must reach no cluster.
pub(crate) const NOWHERE: &str = "https://127.0.0.1:9";

/// A connection as `user` to [`NOWHERE`], as the server makes one at start (a client is made, nothing is asked).
pub(crate) fn connected_nowhere(user: &str) -> Connected {
    let config = kube::Config::new(NOWHERE.parse().expect("a URL"));
    let client = kube::Client::try_from(config.clone()).expect("a client, even for an address where nothing listens");
    Connected {
        client,
        config,
        identity: Identity::operator(NOWHERE, user),
        source: "test".into(),
        context: "test".into(),
        contexts: vec!["test".into()],
        in_cluster: false,
    }
}

/// An engine acting through `access`, on the test's runtime.
pub(crate) fn engine_with(access: KubeAccess) -> Engine {
    Engine::new(access, &Tasks::new(tokio::runtime::Handle::current()), Duration::ZERO, DrainLimits::default())
}

/// [`router_with`], as reached over HTTPS (`https`: team mode) or not.
pub(crate) fn router_over(options: leptos::config::LeptosOptions, https: bool) -> Router {
    let engine = engine_with(KubeAccess::single_user(connected_nowhere("fuzz")));
    web::router(
        options,
        crate::contexts::Contexts::only(engine),
        BoardSettings::default(),
        AllowedHosts::new(&[]),
        StreamLimits::new(64, 64),
        https,
        None,
    )
}

/// Any JSON value, with the extremes that break naive arithmetic.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![Just("node-1"), Just("n1/status"), Just("../x"), Just("Client"), Just("app in (x")]
            .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,12}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A request body: the functions' own argument names with any values, or any text at all.
fn body() -> impl Strategy<Value = (String, &'static str)> {
    let keys = prop::sample::select(vec!["node", "nodes", "id", "options", "reason", "confirm", "first", "paused"]);
    let option_keys = prop::sample::select(vec![
        "force",
        "timeout_seconds",
        "grace_period_seconds",
        "skip_wait_for_delete_timeout_seconds",
        "pod_selector",
        "dry_run",
        "disable_eviction",
    ]);
    let options = prop::collection::vec((option_keys, json()), 0..5)
        .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>()));
    let arguments = (prop::collection::vec((keys, json()), 0..5), options).prop_map(|(pairs, options)| {
        let mut object: Map<String, Value> = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if object.contains_key("options") {
            object.insert("options".into(), options);
        }
        (Value::Object(object).to_string(), "application/json")
    });
    prop_oneof![
        arguments,
        ".{0,300}".prop_map(|text| (text, "application/json")),
        ".{0,100}".prop_map(|text| (text, "application/x-www-form-urlencoded")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_body_gets_a_status_and_no_panic(endpoint in prop::sample::select(ENDPOINTS), (text, kind) in body()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let status = runtime.block_on(async {
            let request = Request::post(format!("/api/{endpoint}"))
                .header("host", "localhost")
                .header("content-type", kind)
                .body(Body::from(text.clone()))
                .unwrap();
            // A request that decodes and validates may wait on the unreachable API server's first list; it got
            // past every check without a panic, which is what is under test.
            tokio::time::timeout(Duration::from_secs(1), router().oneshot(request)).await.map(|r| r.unwrap().status())
        });
        if let Ok(status) = status {
            prop_assert!(status.as_u16() != 500, "{endpoint} {text:?}: {status}");
        }
    }
}
