//! Output files written atomically: into a fresh temporary file (or directory) beside the
//! destination, renamed over it once complete. A reader, or a concurrent writer of the same
//! path, sees the old file or the whole new one, never a torn mix, and two writers never
//! share a temporary.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The directory `path` lives in (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Writes `path` through `write`, atomically. `io` turns an I/O error of the temporary file
/// or the rename into the caller's error type. A destination that exists and is not a
/// regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written in place: renaming over it
/// would replace the device or pipe with a file.
pub fn write_atomic_with<E>(
    path: &Path,
    write: impl FnOnce(&File) -> Result<(), E>,
    io: impl Fn(std::io::Error) -> E,
) -> Result<(), E> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = std::fs::OpenOptions::new().write(true).open(path).map_err(&io)?;
        return write(&file);
    }
    let temp = tempfile::Builder::new().prefix(".strata-").suffix(".tmp").tempfile_in(parent_dir(path)).map_err(&io)?;
    write(temp.as_file())?;
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Writes `bytes` to `path`, atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |mut file| file.write_all(bytes).and_then(|()| file.flush()), |e| e)
}

#[cfg(test)]
mod tests {
    use super::write_atomic;

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "an older, longer file that must be replaced whole").unwrap();
        write_atomic(&path, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [std::ffi::OsString::from("out.json")]);
        // A directory in the way is an error, not a partial write.
        assert!(write_atomic(dir.path(), b"x").is_err());
        // A device is written in place, not replaced by a file.
        write_atomic(std::path::Path::new("/dev/null"), b"discarded").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    }
}
