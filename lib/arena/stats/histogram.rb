# frozen_string_literal: true

require_relative "../core"

module Arena
  module Stats
    # The engine's latency histogram as it travels in its JSON (ext/arena_load/hcodec.h,
    # encoding "arena-hist/1"): decoded exactly, merged exactly, and queried with
    # the same percentile rule as the engine, so a merge of several loaders'
    # histograms gives the figures one engine would have printed had it made
    # every request. Percentiles are never averaged.
    class Histogram
      ENCODING = "arena-hist/1"

      class Invalid < Error; end

      attr_reader :sub_bits, :highest, :counts, :total, :min, :max, :sum, :sum_sq

      def self.decode(hash)
        raise Invalid, "histogram is not an object" unless hash.is_a?(Hash)
        raise Invalid, "histogram encoding is not #{ENCODING}" unless hash["encoding"] == ENCODING
        fields = %w[sub_bits highest count min max sum].to_h do |k|
          v = hash[k]
          raise Invalid, "histogram field #{k} is missing or negative" unless v.is_a?(Integer) && v >= 0
          [k, v]
        end
        raise Invalid, "histogram sub_bits out of range" unless fields["sub_bits"].between?(2, 20)
        counts = decode_counts(hash["counts"].to_s, limit: index_limit(fields["sub_bits"], fields["highest"]))
        raise Invalid, "histogram counts add up to #{counts.values.sum}, not #{fields["count"]}" unless counts.values.sum == fields["count"]
        new(sub_bits: fields["sub_bits"], highest: fields["highest"], counts: counts, min: fields["min"],
          max: fields["max"], sum: fields["sum"], sum_sq: Float(hash["sum_sq"] || 0))
      end

      # Varint pairs (gap, count) in base64: see hcodec.h.
      def self.decode_counts(text, limit:)
        bytes = text.unpack1("m0").bytes
        counts = {}
        pos = index = 0
        while pos < bytes.size
          gap, pos = varint(bytes, pos)
          count, pos = varint(bytes, pos)
          index += gap
          raise Invalid, "histogram counts run past the end or hold a zero" if index >= limit || count.zero?
          counts[index] = count
          index += 1
        end
        counts
      rescue ArgumentError
        raise Invalid, "histogram counts are not valid base64"
      end

      def self.varint(bytes, pos)
        value = shift = 0
        loop do
          byte = bytes[pos] or raise Invalid, "histogram counts are truncated"
          pos += 1
          value |= (byte & 0x7f) << shift
          return [value, pos] if byte < 0x80
          shift += 7
          raise Invalid, "histogram varint too long" if shift >= 64
        end
      end

      # The engine's bucket count: index_of(highest) + 1.
      def self.index_limit(sub_bits, highest)
        mask = (1 << sub_bits) - 1
        b = 64 - sub_bits - (64 - (highest | mask).bit_length)
        ((b + 1) << (sub_bits - 1)) + (highest >> b) - (1 << (sub_bits - 1)) + 1
      end

      # A histogram of these values (microseconds), bucketed as the engine
      # does (histogram.c: index_of, values beyond highest in the last bucket):
      # synthetic engine documents for the tests of rules that read them.
      def self.of(values, sub_bits: 11, highest: 100_000_000)
        mask = (1 << sub_bits) - 1
        half = 1 << (sub_bits - 1)
        counts = Hash.new(0)
        values.each do |v|
          c = [v, highest].min
          b = 64 - sub_bits - (64 - (c | mask).bit_length)
          counts[((b + 1) << (sub_bits - 1)) + (c >> b) - half] += 1
        end
        new(sub_bits: sub_bits, highest: highest, counts: counts, min: values.min || 0, max: values.max || 0,
          sum: values.sum, sum_sq: values.sum { |v| v.to_f * v })
      end

      def self.merge(histograms)
        histograms.compact.reduce { |a, b| a.merge(b) }
      end

      def initialize(sub_bits:, highest:, counts:, min:, max:, sum:, sum_sq:)
        @sub_bits = sub_bits
        @highest = highest
        @counts = counts.freeze
        @total = counts.values.sum
        @min = min
        @max = max
        @sum = sum
        @sum_sq = sum_sq
        freeze
      end

      def merge(other)
        unless other.sub_bits == sub_bits && other.highest == highest
          raise Invalid, "cannot merge histograms of different shapes (sub_bits #{sub_bits}/#{other.sub_bits})"
        end
        return other if total.zero?
        return self if other.total.zero?
        self.class.new(sub_bits: sub_bits, highest: highest, counts: counts.merge(other.counts) { |_, a, b| a + b },
          min: [min, other.min].min, max: [max, other.max].max, sum: sum + other.sum, sum_sq: sum_sq + other.sum_sq)
      end

      # The engine's rule (histogram.c): the middle of the bucket holding the
      # rank-th value, rank = ceil(pct * 10^4 * total / 10^6) in integers,
      # clamped to [min, max]; the last rank is max.
      def percentile(pct)
        return 0 if total.zero?
        ppm = (pct.to_f.clamp(0.0, 100.0) * 10_000.0).round
        rank = [(ppm * total + 999_999) / 1_000_000, 1].max
        return max if rank >= total
        seen = 0
        counts.keys.sort.each do |i|
          seen += counts[i]
          next if seen < rank
          return value_of(i)
        end
        max
      end

      # How many values lie over `us`, each read as percentile reads it
      # (its bucket's middle, clamped to [min, max]).
      def count_over(us) = counts.sum { |i, n| (value_of(i) > us) ? n : 0 }

      def mean = total.zero? ? 0.0 : sum.to_f / total

      def stdev
        return 0.0 if total < 2
        n = total.to_f
        m = sum / n
        var = (sum_sq - n * m * m) / (n - 1)
        var.positive? ? Math.sqrt(var) : 0.0
      end

      # The engine's "latency_us" object, computed from these counts.
      def latency_us
        {"count" => total, "min" => total.zero? ? 0 : min, "mean" => mean.round(1), "stdev" => stdev.round(1),
         "max" => max, "p50" => percentile(50), "p75" => percentile(75), "p90" => percentile(90),
         "p99" => percentile(99), "p999" => percentile(99.9), "p9999" => percentile(99.99)}
      end

      def to_h
        {"encoding" => ENCODING, "sub_bits" => sub_bits, "highest" => highest, "count" => total,
         "min" => total.zero? ? 0 : min, "max" => max, "sum" => sum, "sum_sq" => sum_sq, "counts" => encode_counts}
      end

      private

      # The value bucket i stands for: its middle, clamped to [min, max].
      def value_of(i)
        lo, width = bucket_range(i)
        (lo + width / 2).clamp(min, max)
      end

      def bucket_range(i)
        half = 1 << (sub_bits - 1)
        b = (i >> (sub_bits - 1)) - 1
        sub = (i & (half - 1)) + half
        if b.negative?
          sub -= half
          b = 0
        end
        [sub << b, 1 << b]
      end

      def encode_counts
        pos = 0
        bytes = counts.keys.sort.flat_map do |i|
          pair = varint_bytes(i - pos) + varint_bytes(counts[i])
          pos = i + 1
          pair
        end
        [bytes.pack("C*")].pack("m0")
      end

      def varint_bytes(v)
        out = []
        loop do
          byte = v & 0x7f
          v >>= 7
          out << (v.zero? ? byte : byte | 0x80)
          return out if v.zero?
        end
      end
    end
  end
end
