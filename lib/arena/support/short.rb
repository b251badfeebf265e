# frozen_string_literal: true

module Arena
  module Support
    # Figures for the terminal: at most three significant figures, with their
    # unit ("14.2k", "3.1 ms", "102 ms", "41.2 MiB"). The reports keep more.
    module Short
      module_function

      # A count or rate: "842", "84.2", "14.2k", "1.42M"; "0" for nothing.
      def rate(value)
        v = value.to_f
        return "0" if v.zero?
        return "#{sig(v / 1e6)}M" if v >= 999_500
        return "#{sig(v / 1e3)}k" if v >= 999.5
        sig(v)
      end

      # Microseconds as "850 µs", "3.1 ms", "102 ms", "1.25 s"; "-" for none.
      def duration_us(us)
        return "-" if us.nil?
        v = us.to_f
        return "#{sig(v / 1e6)} s" if v >= 999_500
        return "#{sig(v / 1e3)} ms" if v >= 999.5
        "#{sig(v)} µs"
      end

      # kB as "41.2 MiB", "1.23 GiB"; "-" where not sampled (0).
      def memory_kb(kb)
        return "-" if kb.to_i.zero?
        mib = kb.to_f / 1024
        (mib >= 999.5) ? "#{sig(mib / 1024)} GiB" : "#{sig(mib)} MiB"
      end

      # A share in percent: "1.2%", "12%", "0.05%".
      def pct(value) = "#{sig(value.to_f)}%"

      # Half an interval, in percent, to two figures: "±1.2%", "±24%".
      def plus_minus(value) = "±#{sig(value.to_f, 2)}%"

      # Three significant figures, no trailing zeros past the point, and no
      # exponent: 3.10 -> "3.1", 101.8 -> "102", 0.0123 -> "0.0123".
      def sig(value, digits = 3)
        return "0" if value.zero?
        places = [digits - 1 - Math.log10(value.abs).floor, 0].max
        text = format("%.#{places}f", value.round(places))
        text.include?(".") ? text.sub(/\.?0+\z/, "") : text
      end
    end
  end
end
