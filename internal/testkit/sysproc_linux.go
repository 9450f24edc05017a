package testkit

import "syscall"

// sysProcAttr puts the server in its own process group, so that signals
// reach its children but never the test binary, and has the kernel kill it
// when the test binary dies.
//
// The parent-death signal fires when the thread that started the server
// exits, not the whole test binary; Go only retires threads of goroutines
// that exit while locked to their thread, which test code does not do.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
		Credential: cred,
	}
}
