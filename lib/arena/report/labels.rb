# frozen_string_literal: true

require_relative "../plan/machine"
require_relative "../servers/base"

module Arena
  module Report
    # A server config's label for a person: only the settings that differ from
    # the server's defaults ("puma:workers=2,threads=5,preload=false" reads
    # "puma" when those are Puma's defaults on the run's machine, "puma:threads=16"
    # when threads were raised). The full label stays in results.json and in
    # the reports' servers table.
    #
    # A default that depends on the machine (a worker per core) is judged on
    # the machine the run recorded; a document that recorded none keeps such
    # settings shown, so a label never hides a setting it cannot vouch for.
    class Labels
      UNKNOWN = Object.new.freeze

      # key, settings ("k=v,k=v") and the runtime/envelope tail (+yjit, @cpus=1)
      LABEL = /\A(?<key>[^:+@]+)(?::(?<settings>[^+@]*))?(?<tail>[+@].*)?\z/

      # machine: the run's, when there is no document yet (during the run).
      def initialize(document, machine: nil)
        @machine = machine || machine_of(document)
        @short = {}
      end

      def call(label)
        @short[label] ||= shorten(label.to_s)
      end

      private

      def shorten(label)
        parts = LABEL.match(label)
        adapter = parts && Servers.registry[parts[:key]]
        return label unless adapter && parts[:settings]
        defaults = adapter.settings.transform_values { |d| d.respond_to?(:call) ? default_on_machine(d) : d }
        kept = parts[:settings].split(",").reject do |pair|
          name, value = pair.split("=", 2)
          defaults.key?(name) && !defaults[name].equal?(UNKNOWN) && defaults[name].to_s == value.to_s
        end
        "#{parts[:key]}#{":#{kept.join(",")}" unless kept.empty?}#{parts[:tail]}"
      end

      def default_on_machine(default) = @machine ? default.call(@machine) : UNKNOWN

      # The machine as the run recorded it (plan.machine: cores and --cpus).
      def machine_of(document)
        recorded = document&.plan&.raw&.dig("machine")
        return nil unless recorded.is_a?(Hash) && recorded["cores"].is_a?(Integer)
        shared = recorded["cpus"] == "shared" || (recorded["cores"] > 1 && recorded["engine_cpus"].nil?)
        Plan::Machine.new(cores: recorded["cores"], shared: shared).freeze
      end
    end
  end
end
