//! The tools a window's freeze may hold, as a window lists them: kept apart from the rules, so that the window's
//! own checks read them without reading the rules.

/// A tool a freeze may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Switch {
    Karpenter,
    ClusterAutoscaler,
    Kured,
}

impl Switch {
    pub const ALL: [Switch; 3] = [Switch::Karpenter, Switch::ClusterAutoscaler, Switch::Kured];

    /// As a window lists it.
    pub fn id(self) -> &'static str {
        match self {
            Switch::Karpenter => "karpenter",
            Switch::ClusterAutoscaler => "clusterAutoscaler",
            Switch::Kured => "kured",
        }
    }

    pub fn from_id(id: &str) -> Option<Switch> {
        Switch::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The node annotation that is the switch; `None` for kured, whose lock is on its DaemonSet.
    pub fn annotation(self) -> Option<&'static str> {
        match self {
            Switch::Karpenter => Some("karpenter.sh/do-not-disrupt"),
            Switch::ClusterAutoscaler => Some("cluster-autoscaler.kubernetes.io/scale-down-disabled"),
            Switch::Kured => None,
        }
    }
}

/// A window's `holdOthers`, checked: each a known id, once.
pub fn parse(listed: &[String]) -> Result<Vec<Switch>, String> {
    if listed.len() > Switch::ALL.len() {
        return Err(format!("holdOthers lists {}; at most {} are allowed", listed.len(), Switch::ALL.len()));
    }
    let mut out = Vec::new();
    for (i, id) in listed.iter().enumerate() {
        let Some(switch) = Switch::from_id(id) else {
            let shown: String = id.chars().take(40).collect();
            return Err(format!(
                "holdOthers[{i}] {shown:?} is not a tool; write karpenter, clusterAutoscaler or kured"
            ));
        };
        if out.contains(&switch) {
            return Err(format!("holdOthers[{i}] lists {id} twice"));
        }
        out.push(switch);
    }
    Ok(out)
}
