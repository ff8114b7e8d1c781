package cli

// The built-in methods that live outside package sim register when their
// package is imported (see docs/methods.md).
import _ "github.com/fedaux/fedaux/methods"
