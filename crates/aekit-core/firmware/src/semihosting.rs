//! ARM semihosting (ARM DUI 0471, "Semihosting operations"): the operation
//! number in r0, its argument in r1, `bkpt 0xab` on M-profile cores. Two
//! operations: SYS_WRITE0 (0x04, a NUL-terminated string to the host's
//! console) and SYS_EXIT (0x18; ADP_Stopped_ApplicationExit ends QEMU with
//! status 0, any other reason with status 1).

use core::arch::asm;
use core::fmt;

const SYS_WRITE0: u32 = 0x04;
const SYS_EXIT: u32 = 0x18;
const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x2_0026;
const ADP_STOPPED_RUN_TIME_ERROR: u32 = 0x2_0023;

/// One semihosting call.
fn call(op: u32, arg: u32) -> u32 {
    let ret;
    // SAFETY: `bkpt 0xab` traps to the debugger (QEMU), which performs
    // operation `op` with `arg` and returns in r0; the operations used here
    // read memory the caller owns and write none.
    unsafe { asm!("bkpt 0xab", inout("r0") op => ret, in("r1") arg, options(nostack)) };
    ret
}

/// Writes a NUL-terminated string to the host's console.
pub fn write0(s: &[u8]) {
    assert_eq!(s.last(), Some(&0));
    call(SYS_WRITE0, s.as_ptr() as u32);
}

/// Ends the emulation: status 0 on success, 1 on failure.
pub fn exit(success: bool) -> ! {
    let reason = if success {
        ADP_STOPPED_APPLICATION_EXIT
    } else {
        ADP_STOPPED_RUN_TIME_ERROR
    };
    call(SYS_EXIT, reason);
    // Unreachable under QEMU; on a board without a debugger, sleep.
    loop {
        // SAFETY: `wfi` waits for an interrupt and has no other effect.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
}

/// The host's console, written a line buffer at a time.
pub struct Console {
    line: [u8; 128],
    len: usize,
}

impl Default for Console {
    fn default() -> Console {
        Console::new()
    }
}

impl Console {
    /// An empty line buffer.
    pub fn new() -> Console {
        Console {
            line: [0; 128],
            len: 0,
        }
    }

    fn flush(&mut self) {
        self.line[self.len] = 0;
        write0(&self.line[..=self.len]);
        self.len = 0;
    }
}

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &byte in s.as_bytes() {
            self.line[self.len] = byte;
            self.len += 1;
            if byte == b'\n' || self.len == self.line.len() - 1 {
                self.flush();
            }
        }
        Ok(())
    }
}
