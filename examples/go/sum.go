// Package sum adds numbers; its tests run confined (see sum_test.go).
package sum

// Sum returns the sum of v.
func Sum(v ...int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}
