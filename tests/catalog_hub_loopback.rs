//! fastembed's hub client fetching a catalog model from a loopback imitation of the hub's file
//! protocol (the real hub is not reachable from the machines this is built on): the pinned model's
//! files, served as the catalog's all-MiniLM-L6-v2, land in the cache under the data directory in
//! Hugging Face's layout and then load with no hub at all.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use seamscope::embed::catalog::{self, CatalogEmbedder, CatalogKind, FetchProgress, HubAccess};
use seamscope::embed::install::sha256_bytes;
use seamscope::embed::model::ModelEmbedder;
use seamscope::embed::{Embedder, cosine};

const REPO: &str = "Qdrant/all-MiniLM-L6-v2-onnx";
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Serve `files` (path inside `REPO` → bytes) the way the hub does for `hf-hub`: the model's API
/// page, and `resolve/main/FILE` with an etag, the commit and ranges. Returns the address and the
/// request lines seen.
fn serve(files: HashMap<String, Vec<u8>>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let mut range: Option<(usize, Option<usize>)> = None;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                if request.is_empty() {
                    request = line.trim().to_string();
                } else if let Some(v) = line.to_lowercase().strip_prefix("range: bytes=") {
                    let (from, to) = v.trim().split_once('-').unwrap_or(("0", ""));
                    range = Some((from.parse().unwrap_or(0), to.parse().ok()));
                }
                line.clear();
            }
            log.lock().unwrap().push(request.clone());
            let path = request.split_whitespace().nth(1).unwrap_or("");
            let prefix = format!("/{REPO}/resolve/main/");
            let (status, headers, body): (&str, String, Vec<u8>) = if path
                == format!("/api/models/{REPO}")
            {
                (
                    "200 OK",
                    String::new(),
                    format!(r#"{{"id":"{REPO}"}}"#).into_bytes(),
                )
            } else if let Some(bytes) = path.strip_prefix(&prefix).and_then(|f| files.get(f)) {
                // `bytes=0-0` for the metadata request, `bytes=N-` for the download.
                let (start, last) = range.unwrap_or((0, None));
                let end = last.map_or(bytes.len(), |l| (l + 1).min(bytes.len()));
                let headers = format!(
                    "etag: \"{}\"\r\nx-repo-commit: {COMMIT}\r\ncontent-range: bytes {start}-{}/{}\r\n",
                    sha256_bytes(bytes),
                    end.saturating_sub(1),
                    bytes.len()
                );
                ("206 Partial Content", headers, bytes[start..end].to_vec())
            } else {
                ("404 Not Found", String::new(), Vec::new())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    (address, seen)
}

#[test]
fn the_hub_client_fetches_into_the_data_directory_and_the_model_then_loads_offline() {
    let cache = tempfile::tempdir().unwrap();
    let places = seamscope::places::Places::of(&common::settings(cache.path()));
    let model = catalog::resolve(CatalogKind::Embedder, "all-MiniLM-L6-v2").unwrap();
    let mut files = HashMap::new();
    for (i, file) in model.files().iter().enumerate() {
        let local = if i == 0 { "model.onnx" } else { file.as_str() };
        files.insert(
            file.clone(),
            std::fs::read(places.model_dir.join(local)).unwrap(),
        );
    }
    let onnx_size = files["model.onnx"].len() as u64;
    let (endpoint, seen) = serve(files);

    let data = tempfile::tempdir().unwrap();
    let access = HubAccess {
        offline: None,
        endpoint,
        token: None,
    };
    let mut progress: Vec<FetchProgress> = Vec::new();
    let mut fetched = CatalogEmbedder::load_with(
        "all-MiniLM-L6-v2",
        data.path(),
        &places.runtime_path,
        None,
        4,
        &access,
        &mut |p| progress.push(p),
    )
    .expect("fetched and loaded");

    // The reachability check, then per file a metadata request and the download.
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests[0], format!("GET /api/models/{REPO} HTTP/1.1"));
    assert_eq!(requests.len(), 1 + 2 * model.files().len(), "{requests:?}");
    // Progress reached the whole ONNX file.
    assert!(
        progress
            .iter()
            .any(|p| p.file == "model.onnx" && p.done == onnx_size && p.total == onnx_size),
        "{progress:?}"
    );

    // Hugging Face's layout under <data>/fastembed: the revision, and links into blobs.
    let folder = data
        .path()
        .join("fastembed")
        .join("models--Qdrant--all-MiniLM-L6-v2-onnx");
    assert_eq!(
        std::fs::read_to_string(folder.join("refs").join("main")).unwrap(),
        COMMIT
    );
    let snapshot_onnx: PathBuf = folder.join("snapshots").join(COMMIT).join("model.onnx");
    assert!(
        std::fs::symlink_metadata(&snapshot_onnx)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let entry = catalog::catalog(data.path())
        .into_iter()
        .find(|e| e.name == "all-MiniLM-L6-v2")
        .unwrap();
    assert!(entry.installed && entry.size_on_disk.unwrap() > onnx_size);

    // The fetched model embeds as the local one does.
    let mut local = ModelEmbedder::load(&places.model_dir, &places.runtime_path, 256, 4).unwrap();
    let texts = ["Replicas are promoted only by the on-call engineer."];
    let c = cosine(
        &fetched.embed(&texts).unwrap()[0],
        &local.embed(&texts).unwrap()[0],
    );
    assert!(c >= 0.999, "cosine {c}");

    // Loaded again, offline: no request at all.
    let before = seen.lock().unwrap().len();
    CatalogEmbedder::load(
        "all-MiniLM-L6-v2",
        data.path(),
        &places.runtime_path,
        None,
        4,
        true,
    )
    .expect("loads from the cache");
    assert_eq!(seen.lock().unwrap().len(), before);
}
