//! Ctrl-Z: who is to be stopped, and whether anyone can resume it.
//!
//! A shell with job control stops and resumes whole jobs (process groups), and reports a job
//! stopped only once every process in it has stopped. Stopping seamscope alone is right only
//! when seamscope is the job; under a parent in the same job (`bash -c 'seamscope …'`,
//! `cargo run`, `timeout`) the parent keeps running, the shell keeps waiting for it, and the
//! pane stays blank until something sends SIGCONT by hand. So, as vim and less do, Ctrl-Z sends
//! SIGTSTP to the whole process group (`kill(0, SIGTSTP)`): every process of the job stops, and
//! the shell takes the terminal back; `fg` continues the group.
//!
//! That needs a shell that will resume the job: the process group must be the terminal's
//! foreground group, and the group's leader must have a parent in another group of the same
//! session (the job-control shell). Otherwise (seamscope started straight by tmux or a
//! terminal emulator, or a group no shell manages) a stopped seamscope would never be
//! continued, so Ctrl-Z is refused with a notice instead.

/// What Ctrl-Z should do here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suspend {
    /// Stop the whole process group: a job-control shell will resume it.
    StopGroup,
    /// Keep running: no shell would resume a stopped seamscope; the reason, in words.
    Refuse(&'static str),
}

/// Whether a job-control shell manages this process's group (see the module's words).
#[cfg(unix)]
pub fn suspend_choice() -> Suspend {
    // SAFETY: these calls take no pointers and only read process attributes.
    let (pgrp, sid) = unsafe { (libc::getpgrp(), libc::getsid(0)) };
    match terminal_foreground() {
        Some(fg) if fg == pgrp => {}
        Some(_) => return Suspend::Refuse("seamscope is not the terminal's foreground job"),
        None => return Suspend::Refuse("seamscope has no controlling terminal"),
    }
    let Some(leader_parent) = parent_of(pgrp) else {
        // The leader's parent cannot be read (no /proc): a shell started the job, most likely.
        return Suspend::StopGroup;
    };
    // SAFETY: as above.
    let (parent_group, parent_session) =
        unsafe { (libc::getpgid(leader_parent), libc::getsid(leader_parent)) };
    if parent_group >= 0 && parent_group != pgrp && parent_session == sid {
        Suspend::StopGroup
    } else {
        Suspend::Refuse("no shell with job control started it, so nothing could resume it")
    }
}

/// Without Unix job control there is nothing to stop.
#[cfg(not(unix))]
pub fn suspend_choice() -> Suspend {
    Suspend::Refuse("this system has no job control")
}

/// Stop the whole process group (every process of the job, seamscope's signal watcher
/// included, which gives the terminal back first).
#[cfg(unix)]
pub fn stop_group() {
    // SAFETY: kill takes no pointers; pid 0 means this process's group.
    unsafe {
        libc::kill(0, libc::SIGTSTP);
    }
}

/// Nothing to stop without Unix job control.
#[cfg(not(unix))]
pub fn stop_group() {}

/// The controlling terminal's foreground process group.
#[cfg(unix)]
fn terminal_foreground() -> Option<libc::pid_t> {
    for fd in [0, 1, 2] {
        // SAFETY: tcgetpgrp takes a descriptor and no pointers; a bad one returns -1.
        let fg = unsafe { libc::tcgetpgrp(fd) };
        if fg > 0 {
            return Some(fg);
        }
    }
    let tty = std::fs::File::open("/dev/tty").ok()?;
    use std::os::fd::AsRawFd;
    // SAFETY: as above, on a descriptor that stays open for the call.
    let fg = unsafe { libc::tcgetpgrp(tty.as_raw_fd()) };
    (fg > 0).then_some(fg)
}

/// The parent of process `pid` (this process's own parent without reading anything).
#[cfg(unix)]
fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    if pid == std::process::id() as libc::pid_t {
        // SAFETY: getppid takes nothing and cannot fail.
        return Some(unsafe { libc::getppid() });
    }
    // /proc/PID/stat: `pid (comm) state ppid …`; the name may hold spaces and parentheses.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}
