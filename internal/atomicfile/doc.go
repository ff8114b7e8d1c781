// Package atomicfile replaces files so that a crash at any moment leaves
// either the old file or the whole new one, never a part, and so that
// processes replacing one file at once never disturb each other.
//
// It imports nothing of the project; export, sim and study write through it.
package atomicfile
