package sim

import (
	"errors"
	"strconv"
	"strings"
)

// ErrUnderflow is ParseFloat's error for a number too small for float64:
// one that would read as 0 although it is not 0.
var ErrUnderflow = errors.New("below float64's smallest value and would be 0")

// ParseFloat reads a setting's number as strconv.ParseFloat does (spaces
// around it ignored), with one more error: a number whose digits are not
// all zero that rounds to 0 (1e-400) wraps ErrUnderflow instead of reading
// as 0, a value no one typed. The errors of strconv come back as they are.
func ParseFloat(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && v == 0 && nonzeroMantissa(s) {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: ErrUnderflow}
	}
	return v, err
}

// nonzeroMantissa reports whether the number text (which strconv took)
// has a digit other than 0 before its exponent.
func nonzeroMantissa(text string) bool {
	text = strings.ToLower(strings.TrimLeft(text, "+-"))
	exp := "e"
	if strings.HasPrefix(text, "0x") {
		text, exp = text[2:], "p"
	}
	if i := strings.Index(text, exp); i >= 0 {
		text = text[:i]
	}
	return strings.Trim(text, "0._") != ""
}

// numberWant is a SettingError's Want for a number ParseFloat refused.
func numberWant(err error) string {
	if errors.Is(err, ErrUnderflow) {
		return "a number float64 holds, not one it reads as 0"
	}
	return "a number"
}
