package partition

// pq is an indexed binary max-heap of vertices keyed by integer gains,
// supporting update and deletion of arbitrary members. Ties are broken by
// the order of operations only, which keeps it deterministic.
type pq struct {
	heap []int32 // vertices
	keys []int   // keys[v] of members
	pos  []int32 // pos[v] = index in heap, or -1
}

func newPQ(n int) *pq {
	q := &pq{keys: make([]int, n), pos: make([]int32, n)}
	for i := range q.pos {
		q.pos[i] = -1
	}
	return q
}

// reset empties the queue.
func (q *pq) reset() {
	for _, v := range q.heap {
		q.pos[v] = -1
	}
	q.heap = q.heap[:0]
}

func (q *pq) len() int { return len(q.heap) }

func (q *pq) contains(v int32) bool { return q.pos[v] >= 0 }

func (q *pq) insert(v int32, key int) {
	q.keys[v] = key
	q.pos[v] = int32(len(q.heap))
	q.heap = append(q.heap, v)
	q.up(len(q.heap) - 1)
}

// update changes the key of member v.
func (q *pq) update(v int32, key int) {
	old := q.keys[v]
	q.keys[v] = key
	if key > old {
		q.up(int(q.pos[v]))
	} else if key < old {
		q.down(int(q.pos[v]))
	}
}

// remove deletes member v.
func (q *pq) remove(v int32) {
	i := int(q.pos[v])
	last := len(q.heap) - 1
	q.pos[v] = -1
	if i != last {
		u := q.heap[last]
		q.heap[i] = u
		q.pos[u] = int32(i)
		q.heap = q.heap[:last]
		q.down(i)
		q.up(int(q.pos[u]))
		return
	}
	q.heap = q.heap[:last]
}

// top returns the member with the largest key and that key, or -1.
func (q *pq) top() (int32, int) {
	if len(q.heap) == 0 {
		return -1, 0
	}
	v := q.heap[0]
	return v, q.keys[v]
}

// pop removes and returns the member with the largest key, or -1.
func (q *pq) pop() int32 {
	if len(q.heap) == 0 {
		return -1
	}
	v := q.heap[0]
	q.remove(v)
	return v
}

func (q *pq) up(i int) {
	h := q.heap
	v := h[i]
	kv := q.keys[v]
	for i > 0 {
		p := (i - 1) / 2
		if q.keys[h[p]] >= kv {
			break
		}
		h[i] = h[p]
		q.pos[h[i]] = int32(i)
		i = p
	}
	h[i] = v
	q.pos[v] = int32(i)
}

func (q *pq) down(i int) {
	h := q.heap
	n := len(h)
	v := h[i]
	kv := q.keys[v]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q.keys[h[c+1]] > q.keys[h[c]] {
			c++
		}
		if q.keys[h[c]] <= kv {
			break
		}
		h[i] = h[c]
		q.pos[h[i]] = int32(i)
		i = c
	}
	h[i] = v
	q.pos[v] = int32(i)
}
