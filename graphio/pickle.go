package graphio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// This file is a small, bounded reader of Python pickles (protocols 0 to
// 2 in their binary opcodes) for exactly what the Planetoid raw files
// hold: NumPy arrays, SciPy CSR matrices and a defaultdict of lists of
// ints, as Python 2 wrote them. It runs no code: a GLOBAL is a name, a
// REDUCE or NEWOBJ a record of the call, a BUILD the state kept beside
// it. Every length is checked against the bytes left before anything is
// allocated, so a malformed file is an error, never a panic or an
// allocation larger than the file.

// Limits of the pickle reader.
const (
	maxPickleStack = 1 << 16 // values on the stack and marks, together
	maxPickleMemo  = 1 << 20 // memo slots
)

// pyGlobal is a GLOBAL opcode's module and name.
type pyGlobal struct{ module, name string }

// pyTuple is a Python tuple.
type pyTuple []any

// pyList is a Python list (a pointer, so that APPEND reaches the value in
// the memo too).
type pyList struct{ items []any }

// pyDict is a Python dict in insertion order.
type pyDict struct{ keys, values []any }

// pyCall is the result of a REDUCE (fn(*args)) or NEWOBJ (cls.__new__(cls,
// *args)): the callable, its arguments, the BUILD state and the items
// SETITEM(S) and APPEND(S) added (a defaultdict's entries).
type pyCall struct {
	fn    pyGlobal
	args  pyTuple
	state any
	dict  *pyDict
	list  *pyList
}

// pyMark is the MARK opcode's stack entry.
type pyMark struct{}

// pyName names a value's kind for errors, without printing the value
// (which may be cyclic through the memo).
func pyName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case pyTuple:
		return fmt.Sprintf("tuple of %d", len(v))
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return "global " + v.module + "." + v.name
	case *pyCall:
		return v.fn.module + "." + v.fn.name + " object"
	case pyMark:
		return "mark"
	}
	return fmt.Sprintf("%T", v)
}

var errPickleTruncated = errors.New("pickle: truncated")

// unpickler holds the reader's state.
type unpickler struct {
	data  []byte
	pos   int
	stack []any
	memo  map[uint32]any
}

// unpickle reads one pickled value from data; bytes after STOP are an
// error.
func unpickle(data []byte) (any, error) {
	u := &unpickler{data: data, memo: map[uint32]any{}}
	v, err := u.run()
	if err != nil {
		return nil, fmt.Errorf("pickle: at byte %d: %w", u.pos, err)
	}
	return v, nil
}

func (u *unpickler) take(n int) ([]byte, error) {
	if n < 0 || n > len(u.data)-u.pos {
		return nil, errPickleTruncated
	}
	b := u.data[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.data) && i-u.pos < 256; i++ {
		if u.data[i] == '\n' {
			s := string(u.data[u.pos:i])
			u.pos = i + 1
			return s, nil
		}
	}
	return "", errors.New("GLOBAL: no newline within 256 bytes")
}

func (u *unpickler) push(v any) error {
	if len(u.stack) >= maxPickleStack {
		return fmt.Errorf("stack deeper than %d", maxPickleStack)
	}
	u.stack = append(u.stack, v)
	return nil
}

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 {
		return nil, errors.New("pop from an empty stack")
	}
	v := u.stack[len(u.stack)-1]
	if _, ok := v.(pyMark); ok {
		return nil, errors.New("value expected, found a mark")
	}
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 {
		return nil, errors.New("empty stack")
	}
	v := u.stack[len(u.stack)-1]
	if _, ok := v.(pyMark); ok {
		return nil, errors.New("value expected, found a mark")
	}
	return v, nil
}

// popMark pops the values above the topmost mark, and the mark.
func (u *unpickler) popMark() ([]any, error) {
	for i := len(u.stack) - 1; i >= 0; i-- {
		if _, ok := u.stack[i].(pyMark); ok {
			items := append([]any(nil), u.stack[i+1:]...)
			u.stack = u.stack[:i]
			return items, nil
		}
	}
	return nil, errors.New("no mark on the stack")
}

func (u *unpickler) memoize(idx uint32) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	if _, ok := u.memo[idx]; !ok && len(u.memo) >= maxPickleMemo {
		return fmt.Errorf("more than %d memo entries", maxPickleMemo)
	}
	u.memo[idx] = v
	return nil
}

func (u *unpickler) recall(idx uint32) error {
	v, ok := u.memo[idx]
	if !ok {
		return fmt.Errorf("memo entry %d not set", idx)
	}
	return u.push(v)
}

func (u *unpickler) u8() (int, error) {
	b, err := u.take(1)
	if err != nil {
		return 0, err
	}
	return int(b[0]), nil
}

func (u *unpickler) u32() (uint32, error) {
	b, err := u.take(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// setItems adds key/value pairs to a dict or to a pyCall (defaultdict).
func setItems(target any, kv []any) error {
	if len(kv)%2 != 0 {
		return errors.New("SETITEMS: odd number of values")
	}
	var d *pyDict
	switch t := target.(type) {
	case *pyDict:
		d = t
	case *pyCall:
		if t.dict == nil {
			t.dict = &pyDict{}
		}
		d = t.dict
	default:
		return fmt.Errorf("SETITEM on a %s", pyName(target))
	}
	for i := 0; i < len(kv); i += 2 {
		d.keys = append(d.keys, kv[i])
		d.values = append(d.values, kv[i+1])
	}
	return nil
}

// appendItems adds items to a list or to a pyCall (a list subclass).
func appendItems(target any, items []any) error {
	switch t := target.(type) {
	case *pyList:
		t.items = append(t.items, items...)
	case *pyCall:
		if t.list == nil {
			t.list = &pyList{}
		}
		t.list.items = append(t.list.items, items...)
	default:
		return fmt.Errorf("APPEND to a %s", pyName(target))
	}
	return nil
}

func (u *unpickler) run() (any, error) {
	for {
		op, err := u.u8()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x80: // PROTO
			p, err := u.u8()
			if err != nil {
				return nil, err
			}
			if p > 2 {
				return nil, fmt.Errorf("pickle protocol %d, want 0 to 2 (Python 2 pickles)", p)
			}
		case '.': // STOP
			v, err := u.pop()
			if err != nil {
				return nil, err
			}
			if u.pos != len(u.data) {
				return nil, fmt.Errorf("%d bytes after STOP", len(u.data)-u.pos)
			}
			return v, nil
		case '(': // MARK
			err = u.push(pyMark{})
		case 'N':
			err = u.push(nil)
		case 0x88, 0x89: // NEWTRUE, NEWFALSE
			err = u.push(op == 0x88)
		case 'K': // BININT1
			var n int
			if n, err = u.u8(); err == nil {
				err = u.push(int64(n))
			}
		case 'M': // BININT2
			var b []byte
			if b, err = u.take(2); err == nil {
				err = u.push(int64(binary.LittleEndian.Uint16(b)))
			}
		case 'J': // BININT
			var n uint32
			if n, err = u.u32(); err == nil {
				err = u.push(int64(int32(n)))
			}
		case 0x8a: // LONG1
			var n int
			var b []byte
			if n, err = u.u8(); err != nil {
				break
			}
			if n > 8 {
				return nil, fmt.Errorf("LONG1 of %d bytes, want at most 8", n)
			}
			if b, err = u.take(n); err != nil {
				break
			}
			var x uint64
			for i := n - 1; i >= 0; i-- {
				x = x<<8 | uint64(b[i])
			}
			if n > 0 && n < 8 && b[n-1]&0x80 != 0 {
				x |= ^uint64(0) << (8 * n) // sign-extend
			}
			err = u.push(int64(x))
		case 'G': // BINFLOAT
			var b []byte
			if b, err = u.take(8); err == nil {
				err = u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
			}
		case 'U', 'C': // SHORT_BINSTRING, SHORT_BINBYTES
			var n int
			var b []byte
			if n, err = u.u8(); err == nil {
				if b, err = u.take(n); err == nil {
					err = u.push(string(b))
				}
			}
		case 'T', 'B', 'X': // BINSTRING, BINBYTES, BINUNICODE
			var n uint32
			var b []byte
			if n, err = u.u32(); err == nil {
				if op == 'T' && int32(n) < 0 {
					return nil, errors.New("BINSTRING of negative length")
				}
				if uint64(n) > uint64(len(u.data)-u.pos) {
					return nil, errPickleTruncated
				}
				if b, err = u.take(int(n)); err == nil {
					err = u.push(string(b))
				}
			}
		case 'c': // GLOBAL
			var mod, name string
			if mod, err = u.line(); err != nil {
				break
			}
			if name, err = u.line(); err != nil {
				break
			}
			err = u.push(pyGlobal{mod, name})
		case ')':
			err = u.push(pyTuple{})
		case ']':
			err = u.push(&pyList{})
		case '}':
			err = u.push(&pyDict{})
		case 't': // TUPLE
			var items []any
			if items, err = u.popMark(); err == nil {
				err = u.push(pyTuple(items))
			}
		case 0x85, 0x86, 0x87: // TUPLE1..3
			n := int(op - 0x84)
			if len(u.stack) < n {
				return nil, errors.New("TUPLE: stack too short")
			}
			t := make(pyTuple, n)
			for i := n - 1; i >= 0; i-- {
				if t[i], err = u.pop(); err != nil {
					return nil, err
				}
			}
			err = u.push(t)
		case 'l': // LIST
			var items []any
			if items, err = u.popMark(); err == nil {
				err = u.push(&pyList{items: items})
			}
		case 'd': // DICT
			var kv []any
			if kv, err = u.popMark(); err == nil {
				d := &pyDict{}
				if err = setItems(d, kv); err == nil {
					err = u.push(d)
				}
			}
		case 'q': // BINPUT
			var n int
			if n, err = u.u8(); err == nil {
				err = u.memoize(uint32(n))
			}
		case 'r': // LONG_BINPUT
			var n uint32
			if n, err = u.u32(); err == nil {
				err = u.memoize(n)
			}
		case 'h': // BINGET
			var n int
			if n, err = u.u8(); err == nil {
				err = u.recall(uint32(n))
			}
		case 'j': // LONG_BINGET
			var n uint32
			if n, err = u.u32(); err == nil {
				err = u.recall(n)
			}
		case '0': // POP
			_, err = u.pop()
		case 'R', 0x81: // REDUCE, NEWOBJ
			var args, fn any
			if args, err = u.pop(); err != nil {
				break
			}
			if fn, err = u.pop(); err != nil {
				break
			}
			g, ok := fn.(pyGlobal)
			if !ok {
				return nil, fmt.Errorf("call of a %s, want a global", pyName(fn))
			}
			t, ok := args.(pyTuple)
			if !ok {
				return nil, fmt.Errorf("call of %s.%s with a %s, want a tuple", g.module, g.name, pyName(args))
			}
			err = u.push(&pyCall{fn: g, args: t})
		case 'b': // BUILD
			var state, obj any
			if state, err = u.pop(); err != nil {
				break
			}
			if obj, err = u.top(); err != nil {
				break
			}
			c, ok := obj.(*pyCall)
			if !ok {
				return nil, fmt.Errorf("BUILD on a %s", pyName(obj))
			}
			if c.state != nil {
				return nil, errors.New("BUILD twice on one object")
			}
			c.state = state
		case 's': // SETITEM
			var k, v, d any
			if v, err = u.pop(); err != nil {
				break
			}
			if k, err = u.pop(); err != nil {
				break
			}
			if d, err = u.top(); err != nil {
				break
			}
			err = setItems(d, []any{k, v})
		case 'u': // SETITEMS
			var kv []any
			var d any
			if kv, err = u.popMark(); err != nil {
				break
			}
			if d, err = u.top(); err != nil {
				break
			}
			err = setItems(d, kv)
		case 'a': // APPEND
			var v, l any
			if v, err = u.pop(); err != nil {
				break
			}
			if l, err = u.top(); err != nil {
				break
			}
			err = appendItems(l, []any{v})
		case 'e': // APPENDS
			var items []any
			var l any
			if items, err = u.popMark(); err != nil {
				break
			}
			if l, err = u.top(); err != nil {
				break
			}
			err = appendItems(l, items)
		default:
			u.pos--
			return nil, fmt.Errorf("unsupported opcode 0x%02x", op)
		}
		if err != nil {
			return nil, err
		}
	}
}
