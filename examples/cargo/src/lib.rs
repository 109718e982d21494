//! Adds numbers; `cargo test` runs the tests confined (see .cargo/config.toml).

/// The sum of `v`.
pub fn sum(v: &[i64]) -> i64 {
    v.iter().sum()
}

#[cfg(test)]
mod tests {
    use std::fs::{self, OpenOptions};
    use std::io::ErrorKind;
    use std::path::Path;

    #[test]
    fn sums() {
        assert_eq!(super::sum(&[1, 2, 3, 36]), 42);
        assert_eq!(super::sum(&[]), 0);
    }

    /// A canary for the confinement itself: the policy gives no access to
    /// $HOME, so creating a file there must fail: it does not exist in the
    /// view (ENOENT), or Landlock alone refuses it (EACCES).
    #[test]
    fn cannot_write_home() {
        let home = std::env::var_os("HOME").expect("HOME is not set");
        let path = Path::new(&home).join(".sharness-exec-canary");
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(_) => {
                let _ = fs::remove_file(&path);
                panic!("created {}: this suite is not confined", path.display());
            }
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::NotFound | ErrorKind::PermissionDenied),
                "{}: {}",
                path.display(),
                e
            ),
        }
    }
}
