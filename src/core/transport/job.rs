//! Windows: a Job Object holding one stdio server and everything it starts.
//!
//! The job is created with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` and its handle is not
//! inheritable, so the host process holds the only handle: when it is closed (our `Drop`, or the
//! host process ending in any way, a crash or `TerminateProcess` included) Windows terminates
//! every process still in the job. Processes a job member starts are in the job too (nested jobs,
//! Windows 8 and later), so `npx.cmd` → `cmd.exe` → `node` → the server all end together.
//!
//! The server is assigned right after `CreateProcess` returns; a process it starts in that
//! instant (before the assignment) would escape the job. `cmd.exe` and `node` take far longer
//! than that to start anything.

use std::io;

use tokio::process::Child;
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation, QueryInformationJobObject,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};

/// Exit code of the processes a terminated job ends (`1`, as `TerminateProcess` callers use).
const TERMINATED: u32 = 1;

/// An owned Job Object handle.
pub struct Job(HANDLE);

// SAFETY: a job handle is a kernel object handle, usable from any thread.
unsafe impl Send for Job {}
// SAFETY: the job functions used here are safe to call concurrently on one handle.
unsafe impl Sync for Job {}

impl Job {
    /// A new kill-on-close job with `child` assigned to it.
    pub fn containing(child: &Child) -> io::Result<Job> {
        let process = child.raw_handle().ok_or_else(|| io::Error::other("the server has already exited"))?;
        // SAFETY: null attributes (not inheritable) and no name; the result is checked.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let job = Job(handle);
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `limits` is a live JOBOBJECT_EXTENDED_LIMIT_INFORMATION of the size passed.
        let set = unsafe {
            SetInformationJobObject(
                job.0,
                JobObjectExtendedLimitInformation,
                (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if set == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both are live handles (the child's is owned by `child`, borrowed here).
        if unsafe { AssignProcessToJobObject(job.0, process as HANDLE) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    /// How many processes of the job are still running; `None` when that cannot be asked.
    pub fn active_processes(&self) -> Option<u32> {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: `info` is a live JOBOBJECT_BASIC_ACCOUNTING_INFORMATION of the size passed.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0,
                JobObjectBasicAccountingInformation,
                (&mut info as *mut JOBOBJECT_BASIC_ACCOUNTING_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        (ok != 0).then_some(info.ActiveProcesses)
    }

    /// Ends every process in the job now.
    pub fn terminate(&self) {
        // SAFETY: a live job handle.
        unsafe { TerminateJobObject(self.0, TERMINATED) };
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: we own the handle; closing the last one ends what is left (KILL_ON_JOB_CLOSE).
        unsafe { CloseHandle(self.0) };
    }
}
