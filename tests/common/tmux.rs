//! A private tmux server for end-to-end tests of the screen: start, type, paste, read back.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server of our own (its own socket), killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Start a server named `name` (unique per test) with one 200x60 bash pane in `dir`.
    pub fn start(dir: &Path, name: &str) -> Tmux {
        Tmux::start_sized(dir, name, 200, 60)
    }

    /// Start a server named `name` with one `width` x `height` bash pane in `dir`.
    pub fn start_sized(dir: &Path, name: &str, width: u16, height: u16) -> Tmux {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is needed for this test: run scripts/test (it installs tmux) or install it"
        );
        let tmux = Tmux {
            socket: format!("seamscope-{name}-{}", std::process::id()),
        };
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "-c",
            &dir.display().to_string(),
            "bash --norc --noprofile",
        ]);
        assert!(started.status.success(), "tmux did not start: {started:?}");
        tmux
    }

    /// Run a tmux command on this server.
    pub fn run(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .args(["-u", "-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env("LC_ALL", "C.UTF-8")
            .output();
        match out {
            Ok(out) => out,
            Err(e) => panic!("cannot run tmux: {e}"),
        }
    }

    /// Send key names (`Enter`, `Escape`) to the pane.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    /// Type literal text into the pane, key by key.
    pub fn type_text(&self, text: &str) {
        assert!(
            self.run(&["send-keys", "-t", "e2e", "-l", text])
                .status
                .success()
        );
    }

    /// The pane's text now.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// Wait until the pane satisfies `done` and has stopped changing (a capture can land in the
    /// middle of a redraw, showing half of the new frame); fails with the pane on timeout.
    pub fn wait_until(&self, what: &str, seconds: u64, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let mut previous = String::new();
        loop {
            let screen = self.screen();
            if done(&screen) && screen == previous {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("waited {seconds} s for {what}; the pane shows:\n{screen}");
            }
            previous = screen;
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Wait until the pane shows every one of `all`.
    pub fn wait_for(&self, all: &[&str], seconds: u64) -> String {
        self.wait_until(&format!("{all:?}"), seconds, |screen| {
            all.iter().all(|s| screen.contains(s))
        })
    }
}

impl Tmux {
    /// Paste `text` into the pane as a terminal paste: bracketed when the program asked for it.
    pub fn paste(&self, text: &str) {
        assert!(
            self.run(&["set-buffer", "-b", "t", "--", text])
                .status
                .success()
        );
        assert!(
            self.run(&["paste-buffer", "-p", "-d", "-b", "t", "-t", "e2e"])
                .status
                .success()
        );
    }

    /// A tmux format evaluated for the pane (`#{alternate_on}`).
    pub fn format(&self, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", "e2e", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Run `command` at a fresh `e2e$ ` prompt.
    pub fn shell(&self, command: &str) {
        self.type_text(command);
        self.keys(&["Enter"]);
    }

    /// Wait for the shell prompt as the last line, with `gone` no longer on screen.
    pub fn wait_for_prompt(&self, gone: &str, seconds: u64) -> String {
        self.wait_until("the shell prompt", seconds, |screen| {
            let last = screen.lines().rev().find(|l| !l.trim().is_empty());
            !screen.contains(gone) && last.is_some_and(|l| l.trim() == "e2e$")
        })
    }
}

impl Tmux {
    /// Until the pane shows `what`, press Tab (a compact screen shows one pane at a time, and
    /// the evaluation page's views take turns).
    pub fn tab_until(&self, what: &str) -> String {
        for _ in 0..8 {
            if self.screen().contains(what) {
                return self.wait_for(&[what], 10);
            }
            self.keys(&["Tab"]);
            std::thread::sleep(Duration::from_millis(300));
        }
        self.wait_for(&[what], 10)
    }

    /// A page taller than the screen read whole: from its top (`Home`), one screen after
    /// another (`PgDn`) until the page stops moving; the screens joined.
    pub fn read_scrolled(&self) -> String {
        self.keys(&["Home"]);
        std::thread::sleep(Duration::from_millis(300));
        let mut seen = self.screen();
        let mut last = seen.clone();
        for _ in 0..20 {
            self.keys(&["NPage"]);
            std::thread::sleep(Duration::from_millis(300));
            let now = self.screen();
            if now == last {
                break;
            }
            seen.push_str(&now);
            last = now;
        }
        seen
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
