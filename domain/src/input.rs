//! What a request may carry. The server checks every value here before anything changes, so that a refused request
//! cordons nothing; the dialog runs the same checks as the person types.
//!
//! Every value from a request is untrusted: names are checked against the API's own grammar (a name with a `/`
//! would otherwise reach a subresource), numbers against ranges the time arithmetic can hold, and text against a
//! length.

use crate::{
    drain::{DrainOptions, DryRun, destructive_options},
    selector::{LabelSelector, SelectorError},
};

/// The longest drain reason kept: enough for a ticket reference and a sentence, and small on a Node annotation.
pub const MAX_REASON_CHARS: usize = 500;

/// The longest pod selector accepted.
pub const MAX_SELECTOR_CHARS: usize = 1024;

/// The longest grace period, timeout or skip-wait accepted: seven days. Longer waits are better not waited on.
pub const MAX_SECONDS: u64 = 7 * 24 * 3600;

/// The most nodes one request names (a rollout, a capacity check).
pub const MAX_NODES: usize = 500;

/// A number field that does not hold a whole number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadNumber;

/// A list of nodes from a request (a rollout's, a capacity check's): each a valid node name, trimmed; 1 to
/// [`MAX_NODES`] of them; none twice.
pub fn node_list(nodes: &[String]) -> Result<Vec<String>, String> {
    let max = MAX_NODES;
    if nodes.is_empty() || nodes.len() > max {
        return Err(format!("name 1 to {max} nodes; this request names {}", nodes.len()));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut list = Vec::with_capacity(nodes.len());
    for node in nodes {
        let name = node_name(node.trim())?;
        if !seen.insert(name) {
            return Err(format!("{name} is named twice"));
        }
        list.push(name.to_owned());
    }
    Ok(list)
}

/// A node name as the API server accepts one: a DNS subdomain (RFC 1123) of at most 253 characters, lowercase
/// letters, digits, `-` and `.`, each dot-separated label starting and ending with a letter or digit.
pub fn node_name(name: &str) -> Result<&str, String> {
    subdomain("node", name)
}

/// A pod's namespace and name from a request: the namespace a DNS label (at most 63 characters, no dots), the name
/// a DNS subdomain, as the API server accepts them.
pub fn pod_ref(namespace: &str, name: &str) -> Result<(), String> {
    namespace_name(namespace)?;
    subdomain("pod", name).map(|_| ())
}

/// A namespace name: a DNS label (at most 63 characters, no dots).
pub fn namespace_name(namespace: &str) -> Result<&str, String> {
    subdomain("namespace", namespace)?;
    if namespace.contains('.') || namespace.len() > 63 {
        return Err(format!("{namespace:?} is not a namespace name: at most 63 characters, and no '.'"));
    }
    Ok(namespace)
}

/// A name of `kind` that is a DNS subdomain (RFC 1123).
pub(crate) fn subdomain<'a>(kind: &str, name: &'a str) -> Result<&'a str, String> {
    let fail = |why: &str| Err(format!("{name:?} is not a {kind} name: {why}"));
    if name.is_empty() {
        return Err(format!("a {kind} name is required"));
    }
    if name.len() > 253 {
        return fail("it is longer than 253 characters");
    }
    for label in name.split('.') {
        let bytes = label.as_bytes();
        if bytes.is_empty() {
            return fail("it has an empty part between dots");
        }
        if !bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-') {
            return fail("only lowercase letters, digits, '-' and '.' may appear");
        }
        if !bytes[0].is_ascii_alphanumeric() || !bytes[bytes.len() - 1].is_ascii_alphanumeric() {
            return fail("each part must start and end with a letter or digit");
        }
    }
    Ok(name)
}

/// A drain's reason, trimmed; `None` when blank.
pub fn reason(text: Option<&str>) -> Result<Option<String>, String> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if chars > MAX_REASON_CHARS {
        return Err(format!("the reason has {chars} characters; at most {MAX_REASON_CHARS} are kept on the node"));
    }
    Ok(Some(text.to_string()))
}

/// Whether the options are in range, and the pod selector readable.
pub fn drain_options(options: &DrainOptions) -> Result<(), String> {
    let in_range = |what: &str, value: Option<u64>| match value {
        Some(v) if v > MAX_SECONDS => Err(format!("{what} of {v} s is more than {MAX_SECONDS} s (seven days)")),
        _ => Ok(()),
    };
    match options.grace_period_seconds {
        Some(g) if g < -1 => return Err(format!("a grace period of {g} s is negative: use -1 for each pod's own")),
        Some(g) => in_range("a grace period", Some(g.unsigned_abs()))?,
        None => {}
    }
    in_range("a timeout", options.timeout_seconds)?;
    in_range("a skip-wait limit", options.skip_wait_for_delete_timeout_seconds)?;
    if let Some(selector) = options.pod_selector.as_deref() {
        if selector.chars().count() > MAX_SELECTOR_CHARS {
            return Err(format!("the pod selector is longer than {MAX_SELECTOR_CHARS} characters"));
        }
        if !selector.trim().is_empty() {
            LabelSelector::parse(selector).map_err(|why: SelectorError| format!("pod selector: {why}"))?;
        }
    }
    Ok(())
}

/// Consent for what cannot be undone: with force, delete-emptydir-data or disable-eviction, the request must carry
/// `confirm` equal to the node's name, as the dialog asks the person to type it. A browser check alone would let
/// any script skip it. A dry run changes nothing, so it needs no consent.
pub fn consent(options: &DrainOptions, node: &str, confirm: Option<&str>) -> Result<(), String> {
    let chosen = destructive_options(options);
    if chosen.is_empty() || options.dry_run != DryRun::None || confirm.map(str::trim) == Some(node) {
        return Ok(());
    }
    let flags = chosen.iter().map(|o| o.flag()).collect::<Vec<_>>().join(", ");
    Err(format!("{flags} cannot be undone: send \"confirm\": \"{node}\" to go ahead"))
}

/// An optional whole number of seconds as typed in a field: blank is `None`; anything else, spaces around it
/// aside, must be a number of type `T`.
pub fn seconds<T: std::str::FromStr>(text: &str) -> Result<Option<T>, BadNumber> {
    let text = text.trim();
    if text.is_empty() { Ok(None) } else { text.parse().map(Some).map_err(|_| BadNumber) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_are_trimmed_bounded_and_distinct() {
        assert_eq!(node_list(&[" n1 ".into(), "n2".into()]), Ok(vec!["n1".to_string(), "n2".to_string()]));
        assert!(node_list(&[]).unwrap_err().contains("1 to 500"));
        assert!(node_list(&vec!["n".to_string(); 501]).unwrap_err().contains("names 501"));
        assert!(node_list(&["n1".into(), " n1".into()]).unwrap_err().contains("named twice"));
        assert!(node_list(&["Bad_Name".into()]).unwrap_err().contains("not a node name"));
    }

    #[test]
    fn node_names_follow_the_apis_grammar() {
        for ok in ["node-1", "ip-10-0-0-5.ec2.internal", "a", "n1"] {
            assert_eq!(node_name(ok), Ok(ok));
        }
        for bad in ["", "n1/status", "../x", "Node-1", "-n", "n-", "a..b", "a b", "n1?x=y", &"a".repeat(254)] {
            assert!(node_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn pod_references_follow_the_apis_grammar() {
        assert_eq!(pod_ref("shop", "web-5f5bcd746-x2k4p"), Ok(()));
        assert!(pod_ref("shop", "web/eviction").unwrap_err().contains("not a pod name"));
        assert!(pod_ref("a.b", "web").unwrap_err().contains("not a namespace name"));
        assert!(pod_ref(&"n".repeat(64), "web").unwrap_err().contains("at most 63"));
        assert_eq!(pod_ref("", "web"), Err("a namespace name is required".into()));
    }

    #[test]
    fn reasons_are_trimmed_and_bounded() {
        assert_eq!(reason(Some("  kernel 6.1  ")), Ok(Some("kernel 6.1".into())));
        assert_eq!(reason(Some("   ")), Ok(None));
        assert_eq!(reason(None), Ok(None));
        assert!(reason(Some(&"é".repeat(MAX_REASON_CHARS))).is_ok(), "characters, not bytes, are counted");
        assert!(reason(Some(&"x".repeat(MAX_REASON_CHARS + 1))).is_err());
    }

    #[test]
    fn options_must_fit_the_time_arithmetic() {
        let with = |f: fn(&mut DrainOptions)| {
            let mut o = DrainOptions::default();
            f(&mut o);
            drain_options(&o)
        };
        assert_eq!(with(|_| {}), Ok(()));
        assert_eq!(with(|o| o.grace_period_seconds = Some(-1)), Ok(()));
        assert_eq!(with(|o| o.timeout_seconds = Some(MAX_SECONDS)), Ok(()));
        assert!(with(|o| o.grace_period_seconds = Some(-2)).is_err());
        assert!(with(|o| o.grace_period_seconds = Some(i64::MAX)).is_err());
        assert!(with(|o| o.grace_period_seconds = Some(i64::MIN)).is_err());
        assert!(with(|o| o.timeout_seconds = Some(u64::MAX)).is_err());
        assert!(with(|o| o.skip_wait_for_delete_timeout_seconds = Some(u64::MAX)).is_err());
        assert!(with(|o| o.pod_selector = Some("app in (web".into())).is_err());
        assert_eq!(with(|o| o.pod_selector = Some("app=web".into())), Ok(()));
    }

    #[test]
    fn destructive_options_need_the_node_named() {
        let force = DrainOptions { force: true, ..Default::default() };
        assert_eq!(consent(&DrainOptions::default(), "n1", None), Ok(()));
        assert!(consent(&force, "n1", None).is_err_and(|why| why.contains("force") && why.contains("\"n1\"")));
        assert!(consent(&force, "n1", Some("n2")).is_err());
        assert_eq!(consent(&force, "n1", Some("n1")), Ok(()));
        let wipe = DrainOptions { delete_emptydir_data: true, disable_eviction: true, ..Default::default() };
        assert!(consent(&wipe, "n1", Some("")).is_err());
        for dry_run in [DryRun::Client, DryRun::Server] {
            assert_eq!(consent(&DrainOptions { dry_run, ..wipe.clone() }, "n1", None), Ok(()), "{dry_run:?}");
        }
    }

    #[test]
    fn consent_names_the_flags() {
        let all =
            DrainOptions { force: true, delete_emptydir_data: true, disable_eviction: true, ..Default::default() };
        assert_eq!(
            consent(&all, "n1", None),
            Err("force, delete-emptydir-data, disable-eviction cannot be undone: send \"confirm\": \"n1\" to go ahead"
                .into())
        );
    }

    #[test]
    fn seconds_are_blank_or_a_whole_number() {
        assert_eq!(seconds::<u64>(""), Ok(None));
        assert_eq!(seconds::<u64>("   "), Ok(None));
        assert_eq!(seconds::<u64>(" 30 "), Ok(Some(30)));
        assert_eq!(seconds::<u64>("0"), Ok(Some(0)));
        assert_eq!(seconds::<i64>("-1"), Ok(Some(-1)), "a grace period of -1 means each pod's own");
        assert_eq!(seconds::<u64>("-1"), Err(BadNumber));
        for bad in ["1.5", "10s", "ten", "1 0", "99999999999999999999"] {
            assert_eq!(seconds::<u64>(bad), Err(BadNumber), "{bad:?}");
        }
    }
}
