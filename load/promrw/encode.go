// Package promrw writes series to a Prometheus remote-write endpoint
// (protocol 1.0: a snappy-compressed protobuf WriteRequest), native
// histograms included. The few messages it needs are encoded here with
// protowire, by their field numbers in Prometheus's prompb/types.proto and
// remote.proto.
package promrw

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Label is one label; a series' labels are sorted by name, __name__ among them.
type Label struct{ Name, Value string }

// Sample is a float value at a time (ms).
type Sample struct {
	Value     float64
	Timestamp int64
}

// BucketSpan is a run of consecutive native-histogram buckets.
type BucketSpan struct {
	Offset int32
	Length uint32
}

// Histogram is a native histogram with integer counts and positive buckets.
type Histogram struct {
	Count          uint64
	Sum            float64
	Schema         int32
	ZeroThreshold  float64
	ZeroCount      uint64
	PositiveSpans  []BucketSpan
	PositiveDeltas []int64 // each bucket's count less the previous bucket's
	Timestamp      int64
}

// TimeSeries is a series' labels and its samples or histograms.
type TimeSeries struct {
	Labels     []Label
	Samples    []Sample
	Histograms []Histogram
}

// Field numbers (prompb).
const (
	writeRequestTimeseries = 1

	seriesLabels     = 1
	seriesSamples    = 2
	seriesHistograms = 4

	labelName  = 1
	labelValue = 2

	sampleValue     = 1
	sampleTimestamp = 2

	histCountInt       = 1
	histSum            = 3
	histSchema         = 4
	histZeroThreshold  = 5
	histZeroCountInt   = 6
	histPositiveSpans  = 11
	histPositiveDeltas = 12
	histTimestamp      = 15

	spanOffset = 1
	spanLength = 2
)

// Marshal encodes a WriteRequest of series.
func Marshal(series []TimeSeries) []byte {
	var b []byte
	for i := range series {
		b = appendMessage(b, writeRequestTimeseries, series[i].append)
	}
	return b
}

func appendMessage(b []byte, field protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, body(nil))
}

func (s *TimeSeries) append(b []byte) []byte {
	for _, l := range s.Labels {
		b = appendMessage(b, seriesLabels, func(b []byte) []byte {
			b = appendString(b, labelName, l.Name)
			return appendString(b, labelValue, l.Value)
		})
	}
	for _, smp := range s.Samples {
		b = appendMessage(b, seriesSamples, func(b []byte) []byte {
			b = appendDouble(b, sampleValue, smp.Value)
			return appendVarint(b, sampleTimestamp, uint64(smp.Timestamp))
		})
	}
	for i := range s.Histograms {
		b = appendMessage(b, seriesHistograms, s.Histograms[i].append)
	}
	return b
}

func (h *Histogram) append(b []byte) []byte {
	// count and zero_count are oneofs: their int variant is written even at 0.
	b = protowire.AppendTag(b, histCountInt, protowire.VarintType)
	b = protowire.AppendVarint(b, h.Count)
	b = appendDouble(b, histSum, h.Sum)
	if h.Schema != 0 {
		b = protowire.AppendTag(b, histSchema, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(h.Schema)))
	}
	b = appendDouble(b, histZeroThreshold, h.ZeroThreshold)
	b = protowire.AppendTag(b, histZeroCountInt, protowire.VarintType)
	b = protowire.AppendVarint(b, h.ZeroCount)
	for _, sp := range h.PositiveSpans {
		b = appendMessage(b, histPositiveSpans, func(b []byte) []byte {
			if sp.Offset != 0 {
				b = protowire.AppendTag(b, spanOffset, protowire.VarintType)
				b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(sp.Offset)))
			}
			return appendVarint(b, spanLength, uint64(sp.Length))
		})
	}
	if len(h.PositiveDeltas) > 0 {
		var packed []byte
		for _, d := range h.PositiveDeltas {
			packed = protowire.AppendVarint(packed, protowire.EncodeZigZag(d))
		}
		b = protowire.AppendTag(b, histPositiveDeltas, protowire.BytesType)
		b = protowire.AppendBytes(b, packed)
	}
	return appendVarint(b, histTimestamp, uint64(h.Timestamp))
}

// Proto3 leaves fields at their zero value out.
func appendString(b []byte, f protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, f, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendDouble(b []byte, f protowire.Number, v float64) []byte {
	if v == 0 && !math.Signbit(v) {
		return b
	}
	b = protowire.AppendTag(b, f, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

func appendVarint(b []byte, f protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, f, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}
