# frozen_string_literal: true

require "json"

module Arena
  module Tune
    # A ready-to-commit configuration for a winner, in the server's own
    # format, and the command line that starts it. The port comes from $PORT
    # where the format allows it; the rest is what the search chose, plus the
    # settings Arena ran it with (preload, timeout, queue...), so the file
    # reproduces what was measured.
    module ConfigFiles
      File = Struct.new(:name, :text, :command, keyword_init: true) do
        def with(**changes) = self.class.new(**to_h, **changes)
      end

      module_function

      # settings: every setting of the winning adapter (tuned and not).
      def for(key, settings, rackup: "config.ru")
        s = settings
        case key
        when "puma" then puma(s, rackup)
        when "unicorn" then prefork("unicorn", s, rackup, preload: s["preload"])
        when "pitchfork" then prefork("pitchfork", s, rackup, preload: nil)
        when "passenger" then passenger(s, rackup)
        when "uwsgi" then uwsgi(s, rackup)
        when "thin" then thin(s, rackup)
        when "falcon" then script(key, ["bundle", "exec", "falcon", "serve", "--bind", "http://0.0.0.0:${PORT:-9292}",
          "--count", s["count"], "--#{s["model"] || "forked"}", "--config", rackup])
        when "iodine" then script(key, ["bundle", "exec", "iodine", "-p", "${PORT:-3000}", "-w", s["workers"], "-t", s["threads"], rackup])
        when "agoo" then script(key, ["bundle", "exec", "agoo", "-b", "http://0.0.0.0:${PORT:-6464}", "-w", s["workers"], "-t", s["threads"], rackup])
        when "itsi" then itsi(s, rackup)
        end
      end

      def puma(s, rackup)
        lines = ["# Found by `arena tune`; Puma reads it with `puma -C puma.rb`.",
          "workers #{s["workers"]}", "threads #{s["threads"]}, #{s["threads"]}",
          "port ENV.fetch(\"PORT\", 9292), ENV.fetch(\"HOST\", \"0.0.0.0\")", "environment ENV.fetch(\"RACK_ENV\", \"production\")"]
        lines << "preload_app!" if s["preload"] && s["workers"].to_i.positive?
        File.new(name: "puma.rb", text: lines.join("\n") + "\n", command: ["bundle", "exec", "puma", "-C", "puma.rb", rackup])
      end

      def prefork(name, s, rackup, preload:)
        lines = ["# Found by `arena tune`; #{name} reads it with `#{name} -c #{name}.rb`.",
          "worker_processes #{s["workers"]}", "listen \"\#{ENV.fetch(\"HOST\", \"0.0.0.0\")}:\#{ENV.fetch(\"PORT\", 8080)}\""]
        lines << "timeout #{s["timeout"]}" if s["timeout"]
        lines << "preload_app #{preload}" unless preload.nil?
        lines << "refork_after #{s["refork_after"].split("/").map(&:to_i).inspect}" if s["refork_after"] && s["refork_after"] != "off"
        File.new(name: "#{name}.rb", text: lines.join("\n") + "\n", command: ["bundle", "exec", name, "-E", "production", "-c", "#{name}.rb", rackup])
      end

      # Passenger Standalone reads Passengerfile.json from the app's directory.
      def passenger(s, rackup)
        config = {"environment" => "production", "port" => 3000, "rackup" => rackup, "max_pool_size" => s["pool"],
                  "min_instances" => s["pool"], "max_request_queue_size" => s["queue"], "turbocaching" => s["turbocaching"]}.compact
        File.new(name: "Passengerfile.json", text: JSON.pretty_generate(config) + "\n", command: ["passenger", "start"])
      end

      def uwsgi(s, rackup)
        text = <<~INI
          ; Found by `arena tune`; start with `uwsgi --ini uwsgi.ini`. Debian's rack plugin predates Rack 3:
          ; Arena ran it with a shim (lib/arena/servers/uwsgi.rb) that a Rack 3 app needs too.
          [uwsgi]
          plugins = http,#{Servers::Uwsgi::PLUGIN}
          http = :$(PORT)
          http-keepalive = true
          master = true
          processes = #{s["processes"]}
          die-on-term = true
          need-app = true
          rb-gc-freq = #{s["gc_freq"] || 1}
          post-buffering = 4096
          rbrequire = bundler/setup
          rack = #{rackup}
        INI
        File.new(name: "uwsgi.ini", text: text, command: ["env", "PORT=8080", "uwsgi", "--ini", "uwsgi.ini"])
      end

      # `thin -C thin.yml start`: with servers > 1 Thin starts that many on
      # consecutive ports, which need a proxy in front (Arena measured it
      # behind nginx round-robin).
      def thin(s, rackup)
        text = <<~YAML
          # Found by `arena tune`; start with `thin -C thin.yml start` (several servers need a proxy in front).
          environment: production
          port: 3000
          servers: #{s["servers"]}
          rackup: #{rackup}
          threaded: #{s["threaded"] || false}
        YAML
        File.new(name: "thin.yml", text: text, command: ["bundle", "exec", "thin", "-C", "thin.yml", "start"])
      end

      def itsi(s, rackup)
        text = <<~RUBY
          # Found by `arena tune`; Itsi reads Itsi.rb from the app's directory (`itsi serve`).
          workers #{s["workers"]}
          threads #{s["threads"]}
          bind "http://0.0.0.0:\#{ENV.fetch("PORT", 3000)}"
          rackup_file #{rackup.inspect}
        RUBY
        File.new(name: "Itsi.rb", text: text, command: ["bundle", "exec", "itsi", "serve"])
      end

      # Servers whose own format is the command line.
      def script(key, argv)
        line = argv.join(" ")
        File.new(name: "#{key}.sh", text: "#!/bin/sh\n# Found by `arena tune`.\nexec #{line}\n", command: ["sh", "#{key}.sh"])
      end
    end
  end
end
