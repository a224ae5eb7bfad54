//! The test command's own setup cannot race: `scripts/test` once started the Postgres server in
//! the background and asked for its binaries in the foreground at the same moment, and on a
//! cold target folder both installed the pgserver wheel into one virtual environment together
//! ("initdb: error while loading shared libraries", "the Postgres server did not start"). Here
//! the same two calls run at once on an empty target folder, installing from the wheel
//! `scripts/test` keeps (SEAMSCOPE_TEST_WHEELHOUSE) with no index, so nothing leaves loopback.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn wheelhouse() -> PathBuf {
    std::env::var_os("SEAMSCOPE_TEST_WHEELHOUSE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "SEAMSCOPE_TEST_WHEELHOUSE is not set: scripts/test downloads the pgserver wheel into \
                 TARGET/wheelhouse and sets it; by hand: python3 -m pip download --no-deps -d /tmp/wh \
                 pgserver==0.1.4 && SEAMSCOPE_TEST_WHEELHOUSE=/tmp/wh"
            )
        })
}

/// `scripts/pg-server ARGS` with an empty target folder of its own and pip kept off the index.
fn pg_server(target: &Path, args: &[&str]) -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new(root.join("scripts/pg-server"));
    cmd.args(args)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", wheelhouse())
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .stdin(Stdio::null());
    cmd
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

#[test]
fn the_server_and_its_binaries_asked_for_at_once_install_once() {
    let work = tempfile::tempdir().unwrap();
    // The server's own user must reach its data folder when this runs as root.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let target = work.path().join("target");
    let data = work.path().join("pg");
    let port = free_port();
    let server_log = std::fs::File::create(work.path().join("server.log")).unwrap();
    let mut server = pg_server(&target, &[data.to_str().unwrap(), &port.to_string()])
        .stdout(server_log.try_clone().unwrap())
        .stderr(server_log)
        .spawn()
        .expect("scripts/pg-server starts");
    // At once, as scripts/test did: the binaries' folder, installing if it must.
    let bin = pg_server(&target, &["--bin"])
        .stderr(Stdio::piped())
        .output()
        .expect("scripts/pg-server --bin runs");
    let read_log = || std::fs::read_to_string(work.path().join("server.log")).unwrap_or_default();
    assert!(
        bin.status.success(),
        "--bin failed: {}",
        String::from_utf8_lossy(&bin.stderr)
    );
    let bin_dir = PathBuf::from(String::from_utf8_lossy(&bin.stdout).trim());
    let started = Instant::now();
    let mut ready = false;
    while started.elapsed() < Duration::from_secs(120) {
        if let Ok(Some(status)) = server.try_wait() {
            panic!(
                "the server stopped ({status}) while the binaries were asked for:\n{}",
                read_log()
            );
        }
        let probe = Command::new(bin_dir.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .status();
        if probe.is_ok_and(|s| s.success()) {
            ready = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Postgres' fast shutdown, as scripts/test stops it.
    let _ = Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status();
    let _ = server.wait();
    let log = read_log();
    assert!(ready, "the server never became ready:\n{log}");
    let installs = format!("{log}{}", String::from_utf8_lossy(&bin.stderr))
        .matches("installing pgserver")
        .count();
    assert_eq!(
        installs, 1,
        "the wheel was installed {installs} times:\n{log}"
    );
}
