// Package datadir finds the project's shared data for tests.
//
// The data directory is $FEDAUX_DATA, else ../shared/data next to the
// module root. When it or a requested file is missing, the calling test is
// skipped, or fails when the environment variable CI is set (a CI run
// never skips silently).
//
// It is for tests only and imports nothing of the project.
package datadir
