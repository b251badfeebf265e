# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "measurement"

module Arena
  module Results
    SCHEMA = "arena-results/1"

    # One workload's pre-flight verification.
    VerifyRecord = Struct.new(:workload, :ok, :problems, keyword_init: true) do
      def self.from_h(h) = new(workload: h["workload"], ok: h["ok"], problems: Array(h["problems"])).freeze

      def to_record = {"workload" => workload, "ok" => ok, "problems" => problems}
    end

    # A server config's record: how it was started and whether it served.
    # Launch::Session makes it (to_record writes it); reports read it (from_h).
    # boot_retry: what the first start said as it exited when a second was
    # made (Launch::LocalServer#boot_retry), nil after one start.
    ServerRecord = Struct.new(:label, :name, :settings, :version, :source, :command, :boot_s, :workers, :status,
      :error, :log_tail, :verify, :front, :unloaded_us, :bind, :cpus, :failed_after_start, :envelope, :boot_retry, keyword_init: true) do
      def self.from_h(h)
        new(label: h["label"].to_s, name: h["name"] || h["label"].to_s.split(":").first, settings: h["settings"] || {},
          version: h["version"], source: h["source"], command: h["command"], boot_s: h["boot_s"], workers: h["workers"],
          status: h["status"] || "ok", error: h["error"], log_tail: Array(h["log_tail"]),
          verify: Array(h["verify"]).select { |v| v.is_a?(Hash) }.map { |v| VerifyRecord.from_h(v) },
          front: h.dig("topology", "front"), unloaded_us: h["unloaded_us"], bind: h["bind"], cpus: h["cpus"],
          failed_after_start: h["failed_after_start"], envelope: h["envelope"], boot_retry: h["boot_retry"]).freeze
      end

      def failed? = status == "failed"

      def state = failed? ? "failed: #{error}" : status

      # The same record, failed: what was recorded of its start stays beside the error.
      def failing(error, log_tail:, after_start:)
        with(status: "failed", error: error, log_tail: Array(log_tail), failed_after_start: after_start || nil)
      end

      def with(**changes) = self.class.new(**to_h, **changes).freeze

      def to_record
        started = !command.nil?
        {"label" => label, "name" => name, "settings" => settings, "version" => version, "source" => source,
         "command" => command, "bind" => bind, "boot_s" => boot_s, "boot_retry" => boot_retry, "cpus" => cpus, "workers" => workers,
         "status" => status, "error" => error, "log_tail" => (log_tail if failed?),
         "verify" => (Array(verify).map(&:to_record) if started), "topology" => ({"front" => front} if started),
         "failed_after_start" => failed_after_start, "envelope" => envelope}.compact
      end
    end

    # The machine a run was made on, as recorded.
    Environment = Struct.new(:cpu_model, :cores, :memory_kb, :kernel, :os, :ruby, :yjit_available, :yjit_on,
      :engine_version, :server_cpus, :engine_cpus, :shared_cpus, keyword_init: true) do
      def self.from_h(h)
        h = {} unless h.is_a?(Hash)
        yjit = h["yjit"].is_a?(Hash) ? h["yjit"] : {}
        pin = h["pinning"].is_a?(Hash) ? h["pinning"] : {}
        new(cpu_model: h["cpu_model"], cores: h["cores"], memory_kb: h["memory_kb"], kernel: h["kernel"], os: h["os"],
          ruby: h["ruby"], yjit_available: (yjit["available"] unless yjit.empty?), yjit_on: yjit["enabled_for_servers"],
          engine_version: h["engine_version"], server_cpus: pin["server_cpus"], engine_cpus: pin["engine_cpus"],
          shared_cpus: pin["cpus"] == "shared").freeze
      end

      def pinned? = !(server_cpus.nil? && engine_cpus.nil?)
    end

    # The load settings a run was planned with, as recorded.
    PlanRecord = Struct.new(:connections, :duration, :warmup, :keep_alive, :slo_ms, :rounds, :scenarios, :bind,
      :preset, :raw, keyword_init: true) do
      def self.from_h(h)
        return new(raw: {}) unless h.is_a?(Hash)
        l = h["load"].is_a?(Hash) ? h["load"] : {}
        new(connections: l["connections"], duration: l["duration"], warmup: l["warmup"], keep_alive: l["keep_alive"],
          slo_ms: l["slo_ms"], rounds: h["rounds"] || h["repeat"], scenarios: h["scenarios"], bind: h["bind"], preset: h["preset"], raw: h).freeze
      end

      def recorded? = !connections.nil?

      # Rounds' old name (documents written before stored "repeat").
      def repeat = rounds

      # `arena tune`'s memory budget (MiB), when the run was a tune.
      def tune_memory_mib = raw["tune"].is_a?(Hash) ? raw["tune"]["memory_mib"] : nil

      # The app the run benchmarked: nil for the built-in one (and for older
      # files, which did not say).
      def app_rackup = (raw.dig("app", "builtin") == false) ? raw.dig("app", "rackup") : nil

      # Each planned single GET request as the command line writes it:
      # [path, expected status, expected body substring]; mixes and other
      # methods (from a requests file) are left out.
      def get_requests
        Array(raw["workloads"]).filter_map do |w|
          next unless w.is_a?(Hash) && w["path"] && w["mix"].nil? && w.fetch("method", "GET") == "GET"
          [w["path"], w["expect_status"], w["expect_body"]]
        end
      end
    end

    # A whole results file, read once: values all the way down. A file of
    # another schema version is still read, with a note: a report of what it
    # holds beats no report. What cannot be read is one clear Error.
    Document = Struct.new(:path, :schema, :arena_version, :created_at, :complete, :interrupted, :environment, :plan,
      :servers, :measurements, :notes, keyword_init: true) do
      def self.load(path)
        path = File.join(path, "results.json") if File.directory?(path)
        from_h(read(path), path: path)
      end

      # The file's JSON as it is (a Hash), once it is known to be a results file.
      def self.read(path)
        raise Error, "no results file at #{path}" unless File.file?(path)
        document = JSON.parse(File.read(path))
        raise Error, "#{path} is not an Arena results file" unless document.is_a?(Hash) && document["schema"].to_s.start_with?("arena-results/")
        document
      rescue JSON::ParserError => e
        raise Error, "#{path} is not valid JSON (#{e.message[0, 80].tr("\n", " ").strip})"
      end

      def self.from_h(h, path: nil)
        notes = []
        notes << "#{path} is schema #{h["schema"]}; this Arena writes #{SCHEMA}: showing what it holds" if h["schema"] != SCHEMA
        measurements = h.fetch("measurements", [])
        raise Error, "#{path}: \"measurements\" is not a list" unless measurements.is_a?(Array)
        servers = h.fetch("servers", [])
        raise Error, "#{path}: \"servers\" is not a list" unless servers.is_a?(Array)
        notes << "the run was interrupted: these are the measurements made before it stopped" if h["interrupted"]
        notes.concat(Document.budget_notes(h))
        new(path: path, schema: h["schema"], arena_version: h["arena_version"], created_at: h["created_at"],
          complete: h["complete"], interrupted: h["interrupted"], environment: Environment.from_h(h["environment"]),
          plan: PlanRecord.from_h(h["plan"]),
          # A server that failed after it started has a second record: the later one wins.
          servers: servers.select { |s| s.is_a?(Hash) }.group_by { |s| s["label"] }.map { |_, rs| ServerRecord.from_h(rs.reduce(:merge)) }.freeze,
          measurements: measurements.select { |m| m.is_a?(Hash) && m["server"] }.map { |m| Measurement.from_h(m) }.freeze,
          notes: notes.freeze).freeze
      end

      # What fitting the run to its time cut (Plan::Budget), and the units not
      # started because --max-time would have passed (Runner#in_time).
      def self.budget_notes(h)
        budget = h["plan"].is_a?(Hash) ? h["plan"]["budget"] : nil
        cuts = budget.is_a?(Hash) ? Array(budget["cuts"]) : []
        bound = (budget["given"] ? "--max-time #{budget["budget_s"]} s" : "the default budget of #{budget["budget_s"]} s") if cuts.any?
        cut = Array(h["cut"]).select { |s| s.is_a?(Hash) }
        skipped, shortened = cut.partition { |s| s["lowered"].nil? }
        [("fitted to #{bound}: #{cuts.join("; ")}" if cuts.any?),
          ("shortened to end within --max-time: #{shortened.map { |s| "#{s["key"]} (round #{s["round"]}, #{lowered(s["lowered"])})" }.join(", ")}" if shortened.any?),
          ("not started, --max-time would have passed first: #{skipped.map { |s| "#{s["key"]} (round #{s["round"]})" }.join(", ")}" if skipped.any?)].compact
      end

      # A cut's lowered bound as a person types it: "--max-time 47 s".
      def self.lowered(setting)
        return "" unless setting.is_a?(Hash)
        setting.map { |k, v| "#{@flag&.call(k.to_sym) || k} #{v.to_f.round} s" }.join(", ")
      end

      # The flag of a load setting by its key (:max_time -> "--max-time"; nil:
      # none). The settings are load/'s, above results/: run/, which records
      # the cuts, names them here. A key without a flag is shown as recorded.
      def self.flags(&flag) = @flag = flag

      # Several runs as one (A B A B on one CI runner): their measurements
      # pool as repeats; the first run's machine and plan stand for all.
      def self.pool(documents)
        first, = documents
        first.with(path: documents.map(&:path).join(", "), measurements: documents.flat_map(&:measurements).freeze,
          notes: documents.flat_map(&:notes).freeze)
      end

      def with(**changes) = self.class.new(**to_h, **changes).freeze

      def dir = path && File.dirname(path)

      def measured = measurements.select(&:measured?)

      def server(label) = servers.find { |s| s.label == label }

      def state
        if complete then "complete"
        elsif interrupted then "interrupted"
        else "unfinished"
        end
      end
    end
  end
end
