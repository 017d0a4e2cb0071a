//! Drainboard's engine: everything that talks to the Kubernetes API, and nothing that draws a page.
//!
//! - [`access`]: who a call is made as, the client for each identity, team mode's sessions, and connecting.
//! - [`authz`]: every access review, and what a caller may read and do.
//! - [`audit`]: the audit trail, a JSON-lines file and an Event on the node for every action.
//! - [`cache`]: how the cluster's nodes, pods, Leases and budgets stay fresh, one set of watches per identity.
//! - [`signin`]: team mode's sign-in: what a person may paste, and who the API server says they are.
//! - [`token`]: `drainboard token`, the sign-in helper that runs a person's exec plugin on their own machine.
//! - [`history`]: each node's durable maintenance history, in a ConfigMap of the server's namespace; [`recent`]
//!   keeps its last day in memory for the timeline, and [`health`] records each node's failures in it.
//! - [`kube_error`]: what a Kubernetes error means (unauthorized, unreachable, a budget's refusal, ...), for the
//!   cache and the drain alike, and how it reads on one line.
//! - [`retry`]: client-go's Retry-After retries, for every call but the eviction (whose loop does its own).
//! - [`lease`]: the per-node Leases through which replicas agree on who drains a node.
//! - [`cards`]: how those caches become node cards.
//! - [`drain`]: how a drain runs, as a server task that any number of viewers follow.
//! - [`moving`]: move first, against the cluster: surge a Deployment with the move recorded on it, and put its
//!   count back.
//! - [`notices`]: outgoing webhooks (Slack, CloudEvents) as maintenance goes, retried, never holding it up.
//! - [`plan`]: rolling maintenance as `MaintenancePlan` objects, followed by every replica and run by the one
//!   that holds each plan's Lease.
//! - [`windows`]: maintenance windows as `MaintenanceWindow` objects, and the decision they make for each node.
//! - [`tasks`]: the one shutdown signal every background task hears, and the tracker the server waits on.
//! - [`Engine`]: the facade the server functions and event streams call, through [`Acting`], the engine bound to
//!   one caller.
//!
//! The rules themselves (drain planning, countdowns, view models) live in `domain`; the engine only feeds them.

pub mod access;
pub mod audit;
pub mod authz;
pub mod cache;
pub mod cards;
pub mod drain;
mod engine;
mod error;
pub mod health;
pub mod history;
pub mod kube_error;
pub mod lease;
pub mod lifecycle;
pub mod metrics;
pub mod moving;
pub mod notices;
pub mod plan;
pub mod pods;
pub mod recent;
pub mod retry;
pub mod sightings;
pub mod signin;
pub mod tasks;
pub mod teams;
pub mod token;
pub mod trim;
pub mod windows;

pub use access::{Caller, Identity, KubeAccess, Source};
pub use authz::Visibility;
pub use engine::{Acting, DrainFeed, Engine};
pub use error::{Error, Result};
