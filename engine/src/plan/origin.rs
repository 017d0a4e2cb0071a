//! In local mode, which plans are the operator's own: the uids of those their servers made or they continued,
//! kept in a file of their state folder (0600, in a folder of mode 0700), a line each, appended. A local server goes on by itself only
//! with these. A plan that merely names the operator (its `started-by` annotation, which anyone who may create
//! plans writes, and which names a kubeconfig user entry many people share) waits for the operator to continue
//! it, as it would for anyone.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

/// The most uids kept: the newest, so the file stays small over years of plans.
const KEEP: usize = 2_000;
/// The longest file read: anything longer was not written by a server (an uid is 36 characters).
const MAX_BYTES: u64 = 200_000;

/// The operator's plans, as their state folder keeps them.
pub struct Origins {
    path: PathBuf,
    /// The uids as last read, and the file's length and time of change then: the coordinator asks about each plan
    /// every few seconds, so the file is read again only when it changed (another of the operator's servers
    /// appended), and a uid known is answered from memory.
    known: parking_lot::Mutex<Known>,
}

#[derive(Default)]
struct Known {
    stamp: Option<(u64, std::time::SystemTime)>,
    uids: std::collections::HashSet<String>,
}

/// The file's length and time of change, or `None` when it cannot be read.
fn stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

fn uid_like(line: &str) -> bool {
    !line.is_empty() && line.len() <= 64 && line.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

impl Origins {
    /// The plans kept in `path` (made when first written).
    pub fn new(path: PathBuf) -> Self {
        Origins { path, known: parking_lot::Mutex::new(Known::default()) }
    }

    fn read(path: &Path) -> Vec<String> {
        use std::io::Read;
        let Ok(file) = std::fs::File::open(path) else { return Vec::new() };
        let mut text = String::new();
        if file.take(MAX_BYTES).read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        text.lines().map(str::trim).filter(|l| uid_like(l)).map(str::to_owned).collect()
    }

    /// Whether the operator's servers made, or the operator continued, the plan `uid`.
    pub fn holds(&self, uid: &str) -> bool {
        let mut known = self.known.lock();
        if known.uids.contains(uid) {
            return true;
        }
        let now = stamp(&self.path);
        if now != known.stamp {
            known.uids = Self::read(&self.path).into_iter().collect();
            known.stamp = now;
        }
        known.uids.contains(uid)
    }

    /// Keeps `uid` as the operator's: written to a temporary file of mode 0600 and renamed into place.
    pub fn remember(&self, uid: &str) -> std::io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
        if !uid_like(uid) {
            return Err(std::io::Error::other("not a plan uid"));
        }
        let mut known = self.known.lock();
        let uids = Self::read(&self.path);
        if uids.iter().any(|u| u == uid) {
            return Ok(());
        }
        let dir = self.path.parent().ok_or_else(|| std::io::Error::other("the plans file has no folder"))?;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        if uids.len() >= KEEP {
            // Kept to the newest half, rewritten under a temporary name and renamed into place (rare).
            let temporary = self.path.with_extension(format!("{}.tmp", std::process::id()));
            let mut file =
                std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&temporary)?;
            for kept in uids.iter().skip(KEEP / 2) {
                writeln!(file, "{kept}")?;
            }
            file.sync_all()?;
            std::fs::rename(&temporary, &self.path)?;
        }
        // One short line appended at once: several servers of the operator may write at the same time.
        let mut file = std::fs::OpenOptions::new().append(true).create(true).mode(0o600).open(&self.path)?;
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600))?;
        file.write_all(format!("{uid}\n").as_bytes())?;
        file.sync_all()?;
        known.uids.insert(uid.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_the_uids_written_here_are_held_and_the_file_is_the_operators_alone() {
        let dir = std::env::temp_dir().join(format!("drainboard-origins-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let origins = Origins::new(dir.join("state").join("plans"));
        assert!(!origins.holds("5f0c-1"), "nothing before the first write");
        origins.remember("5f0c-1").unwrap();
        origins.remember("5f0c-1").unwrap();
        origins.remember("77aa-2").unwrap();
        assert!(origins.holds("5f0c-1") && origins.holds("77aa-2"));
        assert!(!origins.holds("5f0c"), "a prefix is not a uid");
        // Another of the operator's servers appends: the file is read again, since it changed.
        let other = Origins::new(dir.join("state").join("plans"));
        other.remember("99bb-3").unwrap();
        assert!(origins.holds("99bb-3"), "a uid another server kept");
        assert!(origins.remember("../x\nsneaky").is_err(), "only uid-like text is written");
        let text = std::fs::read_to_string(dir.join("state").join("plans")).unwrap();
        assert_eq!(text, "5f0c-1\n77aa-2\n99bb-3\n");
        let mode = std::fs::metadata(dir.join("state").join("plans")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let mode = std::fs::metadata(dir.join("state")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
