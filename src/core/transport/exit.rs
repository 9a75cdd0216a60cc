//! How a stdio server ended, in words for error messages: its exit code or the signal that
//! killed it.

use std::process::ExitStatus;

/// "exited with code 1", "was killed by signal 9 (SIGKILL)".
pub fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return match signal_name(signal) {
                Some(name) => format!("was killed by signal {signal} ({name})"),
                None => format!("was killed by signal {signal}"),
            };
        }
    }
    format!("ended ({status})")
}

#[cfg(unix)]
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => return None,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn codes_and_signals_are_named() {
        assert_eq!(describe(ExitStatus::from_raw(1 << 8)), "exited with code 1");
        assert_eq!(describe(ExitStatus::from_raw(9)), "was killed by signal 9 (SIGKILL)");
        assert_eq!(describe(ExitStatus::from_raw(64)), "was killed by signal 64");
    }
}
