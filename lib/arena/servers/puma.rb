# frozen_string_literal: true

require_relative "../plan/rails_files"
require_relative "base"

module Arena
  module Servers
    # Puma on MRI: threads, and a prefork cluster when workers > 0.
    class Puma < Base
      server "puma", "threads, optional prefork cluster (MRI)"
      tunable "workers", min: 0, max: ->(m) { 2 * m.server_cores }
      tunable "threads", min: 1, max: 32
      tune_start("a worker per core (Puma's docs, `workers :auto`), 5 threads (Rails' default before 7.2)") { |cores| {"workers" => cores, "threads" => 5} }
      slots("workers x threads") { |s| [s["workers"].to_i, 1].max * s["threads"].to_i }

      # puma.rb, read with `puma -C puma.rb`.
      def self.config_file(s, rackup:)
        lines = ["# Found by `arena tune`; Puma reads it with `puma -C puma.rb`.",
          "workers #{s["workers"]}", "threads #{s["threads"]}, #{s["threads"]}",
          "port ENV.fetch(\"PORT\", 9292), ENV.fetch(\"HOST\", \"0.0.0.0\")", "environment ENV.fetch(\"RACK_ENV\", \"production\")"]
        lines << "preload_app!" if s["preload"] && s["workers"].to_i.positive?
        ConfigFile.new(name: "puma.rb", text: lines.join("\n") + "\n", command: ["bundle", "exec", "puma", "-C", "puma.rb", rackup])
      end

      def self.worker_setting = "workers"

      def self.settings
        {"workers" => ->(m) { m.default_workers }, "threads" => 5, "preload" => false}
      end

      # workers=0 is Puma's single mode (no cluster).
      def self.allowed = {"threads" => 1..}

      def command(app:, bind:, dir:)
        argv = bundle_exec("puma", "--no-config", "-e", "production", "-t", "#{threads}:#{threads}",
          "-b", bind_uri(bind), "--pidfile", File.join(dir, "puma.pid"))
        argv += ["-w", workers.to_s] if cluster?
        argv << "--preload" if cluster? && settings["preload"]
        # The app's job runner inside Puma, as its production puma.rb loads it (Plan::RailsFiles#jobs).
        argv += ["--plugin", app.jobs.plugin] if app.respond_to?(:jobs) && app.jobs
        argv << app.rackup
      end

      def threads = settings["threads"]

      # Puma 8.0.0-8.0.2 with the app's puma.rb setting max_io_threads (puma/puma#3958).
      def answer_note(app)
        return nil if app.builtin || app.dir.nil?
        installed = self.class.install(app)
        io_threads = Plan::RailsFiles.new(dir: app.dir).max_io_threads(env: app.env || {})
        Plan::RailsFiles.io_threads_warning(installed.found ? installed.version : nil, io_threads)
      end

      # Solid Queue's plugin line, as the app's own puma.rb has it.
      def jobs_line(app) = app.jobs&.config_line

      def cluster? = workers.positive?

      def workers = settings["workers"]

      def accepting_workers = cluster? ? workers : nil

      # Over TLS, Puma's ssl:// bind with the run's certificate (its `ssl_bind`).
      def bind_uri(bind)
        return bind.uri("tcp") unless bind.tls?
        "ssl://#{bind.address}?key=#{bind.tls.key}&cert=#{bind.tls.cert}&verify_mode=none"
      end

      def transport_unsupported(transport)
        return nil if transport.plain? || transport.name == "tls"
        "Puma speaks HTTP/1.1 only (TLS yes, HTTP/2 no): put a front before it for #{transport.name}"
      end

      # USR1 (phased, worker by worker) only works without preload: a preloaded
      # app cannot be replaced worker by worker. USR2 re-execs the master.
      def restart_mechanisms
        return [:hot] unless cluster?
        settings["preload"] ? [:hot] : [:phased, :hot]
      end

      def restart(group, mechanism)
        return :unsupported unless restart_mechanisms.include?(mechanism)
        group.signal((mechanism == :phased) ? "USR1" : "USR2")
      end
    end
  end
end
