//go:build unix && !linux

package testkit

import "syscall"

// sysProcAttr puts the server in its own process group, so that signals
// reach its children but never the test binary. Without Linux's
// parent-death signal a crashed test binary may leave servers behind.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Credential: cred,
	}
}
