# frozen_string_literal: true

require "json"
require "fileutils"
require "set"
require_relative "../stats/stats"
require_relative "../version"
require_relative "document"
require_relative "rounds"

module Arena
  module Results
    # The run's results file, and the only place (with measurement.rb and
    # document.rb beside it) where its JSON keys are written and read. Every record is written to disk the moment it
    # exists (a new file renamed over the old one, so a crash or Ctrl-C never
    # leaves half a document), and nothing already measured is ever lost.
    class Store
      attr_reader :path, :document

      def initialize(path:, environment:, plan:)
        @path = path
        FileUtils.mkdir_p(File.dirname(path))
        @document = {
          "schema" => SCHEMA, "arena_version" => VERSION, "created_at" => Time.now.utc.iso8601,
          "environment" => environment, "plan" => JSON.parse(JSON.generate(plan)), "servers" => [], "measurements" => [], "rounds" => [],
          "complete" => false
        }
        flush
      end

      # A server config's start or failure (a Results::ServerRecord).
      def add_server(server) = append("servers", server.to_record)

      def add_measurement(measurement) = append("measurements", measurement.to_record)

      # A round's order: the keys ("label workload scenario") as they ran.
      def add_round(round:, order:) = append("rounds", {"round" => round, "order" => order})

      # A machine-speed reading (Probes::MachineSpeed::Reading, nil: none
      # could be taken) on the server's cores before a load of tune's
      # confirmation round `round`, the config loaded next.
      # variant: the rounds' (Tune::Confirmation's variant: "confirmation", or Scaling's).
      def add_speed(round:, config:, reading:, variant: nil)
        append("machine_speed", {"round" => round, "config" => config, "cpu_ms" => reading&.cpu_ms, "memory_ms" => reading&.memory_ms,
                                 "variant" => variant}.compact)
      end

      # The readings' median (the sum of both parts) and the rounds read
      # more than 15% off it (flagged, their figures left out).
      def add_speed_summary(median_ms:, flagged:)
        @document["machine_speed_summary"] = {"median_ms" => median_ms&.round(3), "flagged_rounds" => flagged}
        flush
      end

      # What --precision reached: the target, the rounds it took, the keys
      # within it and the half-width of those that were not.
      def add_precision(target_pct:, rounds:, reached:, missed:)
        @document["precision"] = {"target_pct" => target_pct, "rounds" => rounds, "reached" => reached, "missed" => missed}
        flush
      end

      # A confirmation round of `arena tune`: its configs in the order they
      # ran, the seconds it took and its design ("sequential": one config at a
      # time on the server's cores, started afresh).
      def add_confirmation_round(round:, order:, seconds:, design:, variant: nil)
        append("confirmation_rounds", {"round" => round, "order" => order, "seconds" => seconds&.round(2), "design" => design,
                                       "variant" => variant}.compact)
      end

      # A unit shortened (lowered: {setting => value}) or not started
      # (lowered nil) because --max-time would have passed before it ended
      # (Runner#in_time): its key, round, and the seconds it needed against those left.
      def add_cut(key:, round:, need_s:, left_s:, lowered:)
        append("cut", {"key" => key, "round" => round, "need_s" => need_s, "left_s" => left_s, "lowered" => lowered})
      end

      # The document so far, as values (what reporters read).
      def view = Document.from_h(@document, path: @path)

      def finish(interrupted: false)
        @document["complete"] = !interrupted
        @document["interrupted"] = true if interrupted
        @document["finished_at"] = Time.now.utc.iso8601
        @document["intervals"] = Store.intervals(view.measured)
        Store.summaries.each { |key, make| @document[key] = make.call(view, @document) }
        flush
      end

      # What a finished document adds from its rows, by key, in the order
      # registered: the rows are the report's to make, so report/ registers
      # (each row against its group's reference, "relative").
      def self.summaries = @summaries ||= {}

      def self.summarize(key, &make) = summaries[key] = make

      # Per server x workload x scenario x variant: the rounds' good req/s as a
      # median with its 95% interval (Stats.interval), one figure a round: its
      # clean one, or its re-run (Rounds.one_per_round; noisy_out: how many were left out).
      def self.intervals(measured)
        measured.group_by { |m| [m.server, m.workload, m.scenario, m.variant] }.map do |(server, workload, scenario, variant), all|
          used = Rounds.one_per_round(all)
          iv = Stats.interval(used.map(&:good_rps))
          {"server" => server, "workload" => workload, "scenario" => scenario, "variant" => variant, "rounds" => used.size,
           "noisy_out" => all.size - used.size, "median" => iv.median, "low" => iv.low, "high" => iv.high,
           "half_width_pct" => iv.half_width_pct&.round(2), "level" => iv.level, "method" => iv.method, "reason" => iv.reason,
           "warmup_s" => used.filter_map(&:warmup_s).max}.compact
        end
      end

      # The store of an earlier run (`arena tune --resume`): its document as
      # it is, appended to from here on, unfinished until finish says otherwise.
      def self.reopen(path)
        allocate.tap { |store| store.send(:reopened, path, Document.read(path)) }
      end

      private

      def reopened(path, document)
        @path = path
        @document = document
        @document["complete"] = false
        flush
      end

      def append(key, record)
        (@document[key] ||= []) << JSON.parse(JSON.generate(record))
        flush
      end

      def flush
        tmp = "#{@path}.tmp"
        File.write(tmp, JSON.pretty_generate(@document))
        File.rename(tmp, @path)
      end

      # The store as a server's later starts see it (rounds that start every
      # server afresh: --between-rounds restart, tune's confirmation rounds):
      # a server is recorded at its first start; a later start of the same
      # label adds no second record, a failure always does. Measurements pass
      # through.
      class FirstStart
        def initialize(store)
          @store = store
          @recorded = Set.new
        end

        def add_server(server)
          return if @recorded.include?(server.label) && !server.failed?
          @recorded << server.label
          @store.add_server(server)
        end

        def add_measurement(measurement) = @store.add_measurement(measurement)
      end
    end
  end
end
