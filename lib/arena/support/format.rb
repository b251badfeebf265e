# frozen_string_literal: true

module Arena
  module Support
    # Units a person reads at a glance.
    module Format
      module_function

      # Under 1 req/s (a fractional open-model rate, 0.25) two significant digits.
      def rps(value)
        return value.round.to_s.reverse.scan(/\d{1,3}/).join(",").reverse if value >= 100
        (value.positive? && value < 1) ? format("%.2g", value) : format("%.1f", value)
      end

      # 3 significant figures, no exponent, no trailing zeros: 1234 -> "1230",
      # 8.123 -> "8.12", 0.01234 -> "0.0123", 31.04 -> "31", 1.302 -> "1.3".
      # trim: false keeps the zeros (ratios side by side read alike: 1.30–1.32).
      def sig3(x, trim: true)
        return "?" if x.nil?
        return "0" if x.zero?
        digits = 3 - 1 - Math.log10(x.abs).floor
        rounded = x.round(digits)
        if digits <= 0
          rounded.round.to_s
        else
          format("%.#{digits}f", rounded).then { |t| trim ? t.sub(/\.?0+\z/, "") : t }
        end
      end

      # "10%, 25% and 50%"
      def and_list(words) = (words.size < 2) ? words.join : "#{words[0..-2].join(", ")} and #{words.last}"

      def duration_us(us)
        return "-" if us.nil?
        if us >= 1_000_000 then format("%.2fs", us / 1e6)
        elsif us >= 1000 then format("%.1fms", us / 1e3)
        else format("%dus", us.round)
        end
      end

      # No process tree measures 0 kB: zero means not sampled (an older results file).
      def memory_kb(kb)
        return "-" if kb.to_i.zero?
        (kb.to_i >= 1024 * 1024) ? format("%.2f GiB", kb / 1048576.0) : format("%.1f MiB", kb.to_i / 1024.0)
      end

      def pct(value)
        return "?" if value.nil? || !value.finite?
        (value < 10) ? format("%.1f%%", value) : format("%.0f%%", value)
      end

      # A config's settings as words: "workers=2 threads=4"; "" for none.
      def pairs(settings) = settings.map { |k, v| "#{k}=#{v}" }.join(" ")

      # The same, and "its defaults" for no settings (or none known).
      def settings(settings) = (settings.nil? || settings.empty?) ? "its defaults" : pairs(settings)

      # A figure of a results file by its metric's name (a gate's or a comparison's): a
      # rate, memory, a count, a share of errors, else a duration in microseconds.
      METRICS = {
        "good_rps" => ->(v) { rps(v) }, "rps" => ->(v) { rps(v) }, "pss" => ->(v) { memory_kb(v) },
        "rss" => ->(v) { memory_kb(v) }, "errors" => ->(v) { v.round.to_s }, "error_pct" => ->(v) { "#{Kernel.format("%.2f", v)}%" }
      }.freeze

      def metric(name, value)
        return "-" if value.nil?
        METRICS.fetch(name) { ->(v) { duration_us(v) } }.call(value)
      end

      def error_pct(pct)
        return "0" if pct.zero?
        (pct < 0.01) ? "<0.01%" : format("%.2f%%", pct)
      end
    end
  end
end
