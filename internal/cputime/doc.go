// Package cputime reads the CPU time the process has used, for the tests that hold a reader to
// linear time or a bomb to a time limit: on a shared machine (CI runs two test binaries on two
// cores) the wall clock counts the other tenants' turns, the CPU time only this process's work.
package cputime
