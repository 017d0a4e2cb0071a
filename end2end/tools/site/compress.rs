//! Precompression of the site: a `.gz` and a `.br` beside every file, written once at build time, so that the
//! server sends the smaller file without compressing on each request (tower-http's `ServeDir` picks the variant
//! the browser accepts). Brotli at its highest quality and gzip at its best: a build pays for them once.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
};

/// Compresses every file under `dir` (recursively) that is not itself a `.gz` or `.br`; returns how many.
pub fn compress_tree(dir: &Path) -> Result<usize, String> {
    let mut count = 0;
    for file in files_under(dir)? {
        compress_file(&file)?;
        count += 1;
    }
    Ok(count)
}

/// The files to compress, in a stable order.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?.path();
            if path.is_dir() {
                pending.push(path);
            } else if !matches!(path.extension().and_then(|e| e.to_str()), Some("gz" | "br")) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn compress_file(path: &Path) -> Result<(), String> {
    let data = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let with = |ext: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(ext);
        PathBuf::from(name)
    };

    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let gz = gzip.write_all(&data).and_then(|()| gzip.finish());
    let gz = gz.map_err(|e| format!("cannot gzip {}: {e}", path.display()))?;
    fs::write(with(".gz"), gz).map_err(|e| format!("cannot write {}.gz: {e}", path.display()))?;

    let params = brotli::enc::BrotliEncoderParams::default();
    let mut br = Vec::new();
    brotli::BrotliCompress(&mut data.as_slice(), &mut br, &params)
        .map_err(|e| format!("cannot brotli-compress {}: {e}", path.display()))?;
    fs::write(with(".br"), br).map_err(|e| format!("cannot write {}.br: {e}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn every_file_gets_both_variants_and_they_decompress_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        fs::create_dir(&pkg).unwrap();
        let js = "export function hello() { return 'hello'; }\n".repeat(200);
        fs::write(pkg.join("drainboard.js"), &js).unwrap();
        fs::write(dir.path().join("favicon.svg"), "<svg/>").unwrap();

        assert_eq!(compress_tree(dir.path()).unwrap(), 2);

        let gz = fs::read(pkg.join("drainboard.js.gz")).unwrap();
        let mut out = String::new();
        flate2::read::GzDecoder::new(gz.as_slice()).read_to_string(&mut out).unwrap();
        assert_eq!(out, js);
        assert!(gz.len() < js.len() / 10, "gzip made {} bytes of {}", gz.len(), js.len());

        let br = fs::read(pkg.join("drainboard.js.br")).unwrap();
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut br.as_slice(), &mut out).unwrap();
        assert_eq!(out, js.as_bytes());
        assert!(dir.path().join("favicon.svg.gz").exists() && dir.path().join("favicon.svg.br").exists());
    }

    #[test]
    fn a_second_run_does_not_compress_the_compressed_files() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.css"), "body{}").unwrap();
        compress_tree(dir.path()).unwrap();
        assert_eq!(compress_tree(dir.path()).unwrap(), 1, "only a.css, not a.css.gz or a.css.br");
        assert!(!dir.path().join("a.css.gz.gz").exists());
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_it() {
        let err = compress_tree(Path::new("/nonexistent/site")).unwrap_err();
        assert!(err.contains("/nonexistent/site"), "{err}");
    }
}
