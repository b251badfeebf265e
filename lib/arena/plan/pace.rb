# frozen_string_literal: true

require "json"
require_relative "app_probe"
require_relative "plan"

module Arena
  class Plan
    # How slow the app is, before a tune plans its time: PaceProbe boots the
    # app once in a process of its own, in the app's bundle, and times the
    # workload's GET paths in process. A tune sizes its loads by count from
    # it (an app of 20 req/s a core gets loads of a few hundred requests,
    # not 40) and plans its time from the boot and the loads.
    #
    # Never fatal: a workload that is not all GETs, or a probe that fails,
    # gives nil and the reason, and the tune keeps its defaults.
    class Pace
      PROBE = File.expand_path("pace_probe.rb", __dir__)

      # boot_s: the app's boot in process; service_ms, cpu_ms: the weighted
      # means of the paths' in-process wall and CPU times (the least a
      # request holds a slot, and the least a core spends on it).
      Reading = Struct.new(:boot_s, :service_ms, :cpu_ms, keyword_init: true) do
        # Requests a second one core can serve at most: its CPU bound
        # (cores / CPU per request), reached with slots enough to overlap
        # the waits; the wall time where no CPU time was read.
        def rps_per_core = 1000.0 / (cpu_ms.to_f.positive? ? cpu_ms : service_ms)

        def to_h = {"boot_s" => boot_s, "service_ms" => service_ms, "cpu_ms" => cpu_ms}
      end

      # [[weight, path]] of a workload, or nil when it sends anything but GET.
      def self.paths(workload)
        members = workload.mix? ? workload.mix : [[1, workload]]
        return nil unless members.all? { |_, m| m.method.to_s.upcase == "GET" && m.body.to_s.empty? }
        members.map { |weight, m| [weight.to_f, m.path] }
      end

      # The probe's document and the weights -> Reading, or nil when no path
      # answered below 500. Pure.
      def self.reading(doc, weighted)
        times = doc.fetch("paths", []).select { |p| p["ms"] && p["status"].to_i.between?(100, 499) }.to_h { |p| [p["path"], p] }
        answered = weighted.select { |_, path| times[path] }
        return nil if answered.empty? || doc["boot_s"].nil?
        mean = ->(key) { (answered.sum { |w, path| w * times[path][key].to_f } / answered.sum(&:first)).round(3) }
        Reading.new(boot_s: doc["boot_s"].to_f.round(2), service_ms: mean.call("ms"), cpu_ms: mean.call("cpu_ms")).freeze
      end

      def initialize(app:, dir:, headers: {}, env: {}, timeout: 60.0)
        @app = app
        @dir = dir
        @headers = headers
        @env = env
        @timeout = timeout
      end

      # workload -> [Reading or nil, why or nil]
      def call(workload)
        weighted = Pace.paths(workload)
        return [nil, "the workload sends more than GETs"] unless weighted
        doc, why = ask(weighted.map(&:last).uniq)
        return [nil, why] unless doc
        reading = Pace.reading(doc, weighted)
        reading ? [reading, nil] : [nil, "no path answered below 500 in process"]
      end

      private

      def ask(paths)
        ran = AppProbe.run([PROBE, @app.rackup, JSON.generate(@headers), JSON.generate(paths)], app: @app, dir: @dir, name: "pace",
          env: @env, timeout: @timeout)
        return [nil, "the app did not boot within #{@timeout.round} s (#{ran.log_path})"] if ran.status.nil?
        return [nil, "the probe failed: #{ran.tail[0, 200]} (#{ran.log_path})"] unless ran.status.respond_to?(:success?) && ran.status.success?
        [JSON.parse(File.read(ran.out_path)), nil]
      rescue JSON::ParserError
        [nil, "the probe's answer was not readable (#{ran.out_path})"]
      end
    end
  end
end
