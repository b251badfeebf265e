# frozen_string_literal: true

module Arena
  module Results
    # What a server's envelope (cgroup) saw during one measurement: its
    # limits, the CFS periods and how many were throttled (and for how long),
    # the peak memory as the cgroup counted it (page cache included, as the
    # OOM killer counts it), and the OOM kills with their times in seconds
    # from the measurement's start. peak_scope: "measurement" (v1 resets the
    # peak) or "since-start" (v2: the server's peak since it started).
    EnvelopeFigures = Struct.new(:limits, :cpus, :memory_bytes, :cgroup_version, :periods, :throttled_periods,
      :throttled_s, :peak_bytes, :peak_scope, :oom_kills, :oom_at_s, :seconds, keyword_init: true) do
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(limits: h["limits"], cpus: h["cpus"], memory_bytes: h["memory_bytes"], cgroup_version: h["cgroup_version"],
          periods: h["periods"].to_i, throttled_periods: h["throttled_periods"].to_i, throttled_s: h["throttled_s"].to_f,
          peak_bytes: h["peak_bytes"], peak_scope: h["peak_scope"], oom_kills: h["oom_kills"].to_i,
          oom_at_s: Array(h["oom_at_s"]).freeze, seconds: h["seconds"]).freeze
      end

      def to_record
        {"limits" => limits, "cpus" => cpus, "memory_bytes" => memory_bytes, "cgroup_version" => cgroup_version,
         "periods" => periods, "throttled_periods" => throttled_periods, "throttled_pct" => throttled_pct,
         "throttled_s" => throttled_s, "peak_bytes" => peak_bytes, "peak_mib" => peak_mib, "peak_scope" => peak_scope,
         "oom_kills" => oom_kills, "oom_at_s" => oom_at_s, "seconds" => seconds}.compact
      end

      # The share of CFS periods in which the quota ran out.
      def throttled_pct = periods.to_i.positive? ? (100.0 * throttled_periods / periods).round(1) : 0.0

      def peak_mib = peak_bytes && (peak_bytes / 1024.0**2).round(1)

      def memory_mib = memory_bytes && (memory_bytes / 1024.0**2).round(1)

      def oom_killed? = oom_kills.to_i.positive?

      def throttled? = throttled_periods.to_i.positive?
    end
  end
end
