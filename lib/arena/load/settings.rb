# frozen_string_literal: true

require_relative "../core"
require_relative "transport"

module Arena
  module Load
    # Every load setting, declared once: a row here when several scenarios
    # (or the engine) read it, a row in the scenario's own class when one
    # scenario alone does (Scenarios::Base.setting). The `arena run` flags and
    # their help, the plan's Load::Options, `arena.yml`'s keys, `arena presets`'
    # listing and (for a row with `engine:`) the engine's argv all derive from
    # Load::TABLE, which gathers both (Load.table): adding a setting is one
    # row, plus the C option when it reaches the engine.
    #
    #   name     the plan's key (Load::Options member, arena.yml key)
    #   flag     the option as `arena run` takes it ("-c N"); its first word is the flag
    #   type     Integer, Float, String, an Array of allowed words, :list (of whole numbers)
    #            or :switch (a flag without a value; on/off in arena.yml)
    #   check    a Range the value must lie in (nil: anything the type allows)
    #   engine   the engine's flag, when the setting is passed to it as it is
    SETTING = Struct.new(:name, :flag, :type, :default, :check, :engine, :help, keyword_init: true)

    class SETTING
      def switch = flag.split.first

      # The value from a flag or a file, checked; a UsageError in one line otherwise.
      def cast(value)
        v = if type.respond_to?(:cast_setting) then type.cast_setting(value)
        elsif type.is_a?(Array) then type.include?(value.to_s) ? value.to_s : fail!("must be one of #{type.join(", ")}")
        elsif type == :switch then SWITCH.fetch(value) { fail!("is on or off") }
        elsif type == :list then Array(value.is_a?(String) ? value.split(",") : value).map { |x| whole(x) }
        elsif type == Integer then whole(value)
        elsif type == Float then Float(value, exception: false) || fail!("must be a number")
        else value.to_s
        end
        case check
        when Range then Array(v).each { |x| fail!(range_words) unless check.cover?(x) }
        when Regexp then fail!("must be #{CHECK_WORDS.fetch(check)}") unless check.match?(v)
        end
        v
      end

      # A switch's flag passes no value (nil): given is on.
      SWITCH = {nil => true, true => true, "true" => true, "on" => true, false => false, "false" => false, "off" => false}.freeze

      def fail!(why) = raise(UsageError, "#{switch} #{why}")

      # A positive setting says "greater than 0", not the epsilon its range starts at.
      def range_words
        return "must be between #{check.begin} and #{check.end}" unless check.begin == Float::EPSILON
        "must be greater than 0#{" and at most #{check.end}" if check.end.finite?}"
      end

      def whole(x) = Integer(x.to_s, exception: false) || fail!("takes whole numbers")
    end

    # Where a scenario's own rows (Scenarios::Base.setting) stand in ROWS, by
    # the scenario's key.
    Owned = Struct.new(:scenario)

    # The engine's own ceiling for any time (ext/arena_load/options.c,
    # parse_seconds: at most 1e7 s): a value it would refuse after the
    # servers started is refused at plan time instead.
    POSITIVE = (Float::EPSILON..10_000_000)
    PATH = %r{\A/[^\s]*\z}
    CHECK_WORDS = {PATH => "a path starting with / (query allowed, no spaces)"}.freeze
    # The shared rows, and where each scenario's own rows stand among them
    # (Owned): the order `arena run --help`, arena.yml and results.json list
    # the settings in.
    ROWS = [
      SETTING.new(name: :connections, flag: "-c N", type: Integer, default: 16, check: 1..20_000, engine: "-c", help: "connections"),
      SETTING.new(name: :duration, flag: "-d SEC", type: Float, default: 0.3, check: POSITIVE, engine: "-d", help: "seconds of load per measurement"),
      SETTING.new(name: :warmup, flag: "-w SEC", type: Float, default: 0.2, check: 0..3600, engine: "-w", help: "warm-up seconds, not counted"),
      Owned.new("steady"),
      SETTING.new(name: :warmup_max, flag: "--warmup-max SEC", type: Float, default: nil, check: 0..3600,
        help: "steady: longest warm-up to a steady state before -w (default 2 x -d, at least 2, at most 10; 0: none)"),
      SETTING.new(name: :threads, flag: "-t N", type: Integer, default: 1, check: 1..64, engine: "-t", help: "load engine threads (on the engine's own cores)"),
      SETTING.new(name: :timeout, flag: "--timeout SEC", type: Float, default: 10.0, check: POSITIVE, engine: "--timeout", help: "response timeout"),
      SETTING.new(name: :keep_alive, flag: "--keep-alive MODE", type: %w[on off both], default: "on", help: "on, off, or both side by side"),
      Owned.new("reps"),
      Owned.new("count"),
      SETTING.new(name: :levels, flag: "--levels LIST", type: :list, default: nil, check: 1..20_000, help: "count, reps: run at each of these connection counts"),
      SETTING.new(name: :slo_ms, flag: "--slo MS", type: Float, default: nil, check: 0.1..600_000,
        help: "p99 objective for rate and breakpoint (default: max(100 ms, 3 x the workload's unloaded p99))"),
      Owned.new("breakpoint"),
      SETTING.new(name: :max_time, flag: "--max-time SEC", type: Float, default: 300.0, check: POSITIVE, help: "the whole run's time bound: the plan is fitted to it (long scenarios' rounds first, then their own bounds) and no unit starts that would end past it (default: none; a sweep at most 300 s)"),
      Owned.new("slow-clients"),
      Owned.new("soak"),
      Owned.new("head-of-line"),
      Owned.new("profile"),
      SETTING.new(name: :queue_time, flag: "--queue-time MODE", type: %w[on off all], default: "on",
        help: "on (default): Arena's timing wrapper in the server times one request in 16 (X-Request-Start on every request): p50/p99 split into waiting and working; all: every request (costs the fastest servers up to a quarter of their throughput); off: neither"),
      # How clients reach the server (Transport): the engine's TLS and HTTP/2
      # flags, the server's or front's bind and the transport check all come
      # from the Transport the plan builds of these three rows.
      SETTING.new(name: :transport, flag: "--transport NAME", type: Load::Transport::NAMES, default: "http1",
        help: "how clients reach it: http1, tls, h2 (over TLS), h2c"),
      SETTING.new(name: :h2_streams, flag: "--h2-streams N", type: Integer, default: nil, check: 1..10_000,
        help: "HTTP/2 requests in flight per connection (default 1)"),
      SETTING.new(name: :tls_resume, flag: "--tls-resume", type: :switch, default: nil,
        help: "resume TLS sessions on reconnect (default: a full handshake per connection)"),
      Owned.new("worker-cost"),
      SETTING.new(name: :settle_timeout, flag: "--settle-timeout SEC", type: Float, default: 30.0, check: POSITIVE,
        help: "longest wait for a quiet server before each measurement")
    ].freeze

    # The whole table: ROWS with each scenario's own rows in their place,
    # then those of a scenario ROWS does not place (so a new scenario's rows
    # need no line in ROWS). scenarios: what answer key and setting_rows.
    def self.gather(rows, scenarios)
      by_key = scenarios.to_h { |s| [s.key, s] }
      table = rows.flat_map { |row| row.is_a?(Owned) ? by_key.fetch(row.scenario).setting_rows : [row] } +
        (by_key.keys - rows.grep(Owned).map(&:scenario)).flat_map { |key| by_key[key].setting_rows }
      twice = table.map(&:name).tally.select { |_, n| n > 1 }.keys
      raise ArgumentError, "load settings declared twice: #{twice.join(", ")}" unless twice.empty?
      table
    end

    # The scenarios by key, in the order they registered (Scenarios.register
    # calls Load.own): what Load.gather places their own rows from.
    def self.owners = (@owners ||= {})

    def self.own(scenario) = owners[scenario.key] = scenario

    # The whole table (Load.gather), made once when first read: the scenarios
    # that declare their own rows load after load/ (lib/arena.rb ends with
    # Scenarios.load_all) and register with Load.own as they load.
    def self.table = @table ||= gather(ROWS, owners.values).freeze

    # Load.table as a constant: its rows, gathered when first enumerated.
    class Table
      include Enumerable

      def each(&) = Load.table.each(&)
    end
    TABLE = Table.new.freeze

    def self.setting(name) = TABLE.find { |s| s.name == name }

    def self.defaults = TABLE.to_h { |s| [s.name, s.default] }

    # What one engine run is asked to do. nil means "the engine's default".
    # The table's engine rows, plus what scenarios and workloads set per run.
    # Per run, one row each: the engine flag of a valued setting a scenario or a
    # workload sets (Engine#argv passes it as it is), then those Engine#argv
    # turns into flags of their own (keep-alive off, -H per header, the
    # transport's flags, --request-start). transport is the Transport value
    # (Load::Options#client_transport), cacert the CA the entry's certificate is
    # verified against; Engine#argv is the one place they become flags.
    RUN_FLAGS = {requests: "-n", reps: "-r", rate: "-R", method: "-m", body_file: "--body", mix_file: "--mix",
                 expect_status: "--expect-status", expect_body: "--expect-body", timeline_ms: "--timeline-ms",
                 profile: "--profile", pipeline: "-p"}.freeze
    RUN_ONLY = [*RUN_FLAGS.keys, :keep_alive, :headers, :transport, :cacert, :request_start].freeze
    Settings = Struct.new(*ROWS.grep(SETTING).select(&:engine).map(&:name), *RUN_ONLY, keyword_init: true)

    class Settings
      # The table's engine defaults (threads, timeout) for what a caller leaves out; keep-alive on.
      def self.build(**kw) = new(keep_alive: true, threads: Load.setting(:threads).default, timeout: Load.setting(:timeout).default, **kw).freeze

      def with(**changes) = self.class.new(**to_h, **changes).freeze
    end
  end
end
