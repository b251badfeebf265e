# frozen_string_literal: true

module Arena
  module Report
    # What a reader needs to trust the numbers, worded once for every format:
    # the machine, the load settings, each server's exact command line.
    module Facts
      SAFE = %r{\A[\w\-.,:+/@=%]+\z}

      module_function

      def environment(env)
        yjit = env["yjit"]
        yjit = if yjit.is_a?(Hash)
          "#{yjit["available"] ? "available" : "not available"}, #{yjit["enabled_for_servers"] ? "on" : "off"} for the servers"
        end
        pinning = env["pinning"]
        pinning = if pinning.is_a?(Hash)
          "servers on CPU #{pinning["server_cpus"] || "any"}, load engine on CPU #{pinning["engine_cpus"] || "any"}"
        end
        [
          ["CPU", [env["cpu_model"], env["cores"] && "#{env["cores"]} cores"].compact.join(", ")],
          ["memory", env["memory_kb"] && Format.memory_kb(env["memory_kb"])], ["kernel", env["kernel"]], ["OS", env["os"]],
          ["Ruby", env["ruby"]], ["YJIT", yjit], ["load engine", env["engine_version"] && "arena-load #{env["engine_version"]}"],
          ["pinning", pinning]
        ].map { |k, v| [k, (v.nil? || v.to_s.empty?) ? "not recorded" : v.to_s] }
      end

      def load(plan)
        l = plan.is_a?(Hash) ? plan["load"] : nil
        return "not recorded" unless l.is_a?(Hash)
        parts = ["#{l["connections"]} connections", "#{l["duration"]} s after a #{l["warmup"]} s warm-up", "keep-alive #{l["keep_alive"]}"]
        parts << "repeated #{plan["repeat"]} times" if plan["repeat"].to_i > 1
        parts << "scenarios #{Array(plan["scenarios"]).join(", ")}" if plan["scenarios"]
        parts << "p99 SLO #{l["slo_ms"]} ms" if l["slo_ms"]
        parts << "bind #{plan["bind"]}" if plan["bind"]
        parts.join("; ")
      end

      # A command line a person can paste into a shell.
      def command(argv)
        return "not recorded" unless argv.is_a?(Array) && argv.any?
        argv.map { |a| SAFE.match?(a.to_s) ? a.to_s : "'#{a.to_s.gsub("'", "'\\\\''")}'" }.join(" ")
      end

      def run_line(document)
        state = if document["complete"] then "complete"
        elsif document["interrupted"] then "interrupted"
        else "unfinished"
        end
        ["Arena #{document["arena_version"] || "?"}", "started #{document["created_at"] || "?"}", state].join(", ")
      end

      def server_status(server)
        (server["status"] == "failed") ? "failed: #{server["error"]}" : (server["status"] || "ok")
      end
    end
  end
end
