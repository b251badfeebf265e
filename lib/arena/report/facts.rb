# frozen_string_literal: true

require_relative "../scenarios/base"
require_relative "../support/format"

module Arena
  module Report
    # What a reader needs to trust the numbers, worded once for every format:
    # the machine, the load settings, each server's exact command line.
    module Facts
      SAFE = %r{\A[\w\-.,:+/@=%]+\z}

      module_function

      def environment(env)
        yjit = if env.yjit_available.nil?
          nil
        else
          "#{env.yjit_available ? "available" : "not available"}, #{env.yjit_on ? "on" : "off"} for the servers"
        end
        pinning = if env.shared_cpus then "servers and load engine share every CPU"
        elsif env.pinned? then "servers on CPU #{env.server_cpus || "any"}, load engine on CPU #{env.engine_cpus || "any"}"
        end
        [
          ["CPU", [env.cpu_model, env.cores && "#{env.cores} cores"].compact.join(", ")],
          ["memory", env.memory_kb && Support::Format.memory_kb(env.memory_kb)], ["kernel", env.kernel], ["OS", env.os],
          ["Ruby", env.ruby], ["YJIT", yjit], ["load engine", env.engine_version && "arena-load #{env.engine_version}"],
          ["pinning", pinning]
        ].map { |k, v| [k, (v.nil? || v.to_s.empty?) ? "not recorded" : v.to_s] }
      end

      def load(plan)
        return "not recorded" unless plan.recorded?
        parts = ["#{plan.connections} connections", "#{plan.duration} s after a #{plan.warmup} s warm-up", "keep-alive #{plan.keep_alive}"]
        parts << "#{plan.rounds} rounds, interleaved" if plan.rounds.to_i > 1
        parts << "scenarios #{Array(plan.scenarios).map { |name| scenario(name) }.join(", ")}" if plan.scenarios
        parts << (plan.slo_ms ? "p99 SLO #{plan.slo_ms} ms" : "p99 SLO max(100 ms, 3 x unloaded p99)") if plan.raw.key?("scenarios")
        parts << "bind #{plan.bind}" if plan.bind
        parts.join("; ")
      end

      # A scenario with what it does, in its own words.
      def scenario(name)
        description = Scenarios.registry[name]&.description
        description ? "#{name} (#{description})" : name
      end

      # A command line a person can paste into a shell.
      def command(argv)
        return "not recorded" unless argv.is_a?(Array) && argv.any?
        argv.map { |a| SAFE.match?(a.to_s) ? a.to_s : "'#{a.to_s.gsub("'", "'\\\\''")}'" }.join(" ")
      end

      def run_line(document)
        ["Arena #{document.arena_version || "?"}", "started #{document.created_at || "?"}", document.state].join(", ")
      end
    end
  end
end
