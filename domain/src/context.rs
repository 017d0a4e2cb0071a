//! Which kubeconfig context a page, server function or event stream is for.
//!
//! A local-mode server serves every context of the operator's kubeconfig, each as its own cluster view: the
//! context it started with at `/`, any other under `/ctx/NAME/` (the name percent-encoded, since context names such
//! as EKS ARNs hold `/` and `:`). The address alone says which cluster a tab shows, so two tabs can show two
//! clusters, and a link or a bookmark keeps its cluster. A cookie could not: it is shared by every tab.
//!
//! The server and the browser both split an address with [`split`], so they agree on the prefix to the byte.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// The first segment of a context's addresses.
pub const SEGMENT: &str = "ctx";

/// The longest context name served: a kubeconfig's names are the operator's own, but the address is anyone's.
pub const MAX_NAME: usize = 253;

/// What stays unencoded in a name's segment: the characters a path segment never needs escaped.
const ENCODE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// An address split at its context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split<'a> {
    /// `/ctx/NAME` as the address spells it, or empty for the server's first context.
    pub prefix: &'a str,
    /// The context's name, decoded; `None` for the server's first context.
    pub name: Option<String>,
    /// The rest of the path, from its `/` (at least `/`).
    pub rest: &'a str,
}

/// Splits a request path (no query) into its context prefix and the rest. A `/ctx/` path whose name does not decode
/// to UTF-8, is empty or too long is `Err`, with what is wrong.
pub fn split(path: &str) -> Result<Split<'_>, String> {
    let Some(after) = path.strip_prefix('/').and_then(|p| p.strip_prefix(SEGMENT)).and_then(|p| p.strip_prefix('/'))
    else {
        return Ok(Split { prefix: "", name: None, rest: path });
    };
    let end = after.find('/').unwrap_or(after.len());
    let encoded = &after[..end];
    let name = percent_decode_str(encoded)
        .decode_utf8()
        .map_err(|_| "the context name in the address is not UTF-8".to_string())?
        .into_owned();
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(format!("a context name has 1 to {MAX_NAME} characters"));
    }
    let prefix_len = 1 + SEGMENT.len() + 1 + end;
    let rest = &path[prefix_len..];
    Ok(Split { prefix: &path[..prefix_len], name: Some(name), rest: if rest.is_empty() { "/" } else { rest } })
}

/// The prefix of `name`'s addresses: `/ctx/NAME`, percent-encoded.
pub fn prefix_for(name: &str) -> String {
    format!("/{SEGMENT}/{}", utf8_percent_encode(name, ENCODE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_context_has_no_prefix() {
        assert_eq!(split("/nodes/n1"), Ok(Split { prefix: "", name: None, rest: "/nodes/n1" }));
        assert_eq!(split("/"), Ok(Split { prefix: "", name: None, rest: "/" }));
        // Only a whole `ctx` segment is a context.
        assert_eq!(split("/ctxs/a").map(|s| s.name), Ok(None));
    }

    #[test]
    fn a_named_context_is_split_off_and_decoded() {
        let split_path = split("/ctx/kind-b/nodes/n1").expect("a context");
        assert_eq!(split_path, Split { prefix: "/ctx/kind-b", name: Some("kind-b".into()), rest: "/nodes/n1" });
        assert_eq!(split("/ctx/kind-b").expect("a context").rest, "/");
        assert_eq!(split("/ctx/kind-b/").expect("a context").rest, "/");
    }

    #[test]
    fn names_with_slashes_and_colons_round_trip() {
        for name in ["arn:aws:eks:eu-west-1:123456789012:cluster/prod", "alice@prod", "日本", "a b", "%2F"] {
            let prefix = prefix_for(name);
            let path = format!("{prefix}/api/board");
            let split_path = split(&path).expect("a context");
            assert_eq!(split_path.name.as_deref(), Some(name), "{path}");
            assert_eq!(split_path.prefix, prefix);
            assert_eq!(split_path.rest, "/api/board");
        }
    }

    #[test]
    fn bad_names_are_refused() {
        assert!(split("/ctx//nodes").is_err());
        assert!(split("/ctx/%FF").is_err());
        assert!(split(&format!("/ctx/{}", "a".repeat(MAX_NAME + 1))).is_err());
        assert!(split(&format!("/ctx/{}", "a".repeat(MAX_NAME))).is_ok());
    }
}
