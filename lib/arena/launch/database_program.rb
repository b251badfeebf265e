# frozen_string_literal: true

require "digest"
require "tmpdir"
require_relative "../core"
require_relative "../system/process_group"

module Arena
  module Launch
    # The programs a throwaway database runs (initdb, psql, the app's
    # db:prepare), each to its end, and what their logs say when they fail;
    # and the name each server config's connections carry.
    module DatabaseProgram
      # A log line naming an exception (`PG::ConnectionBad: ...`) or a
      # server's error (`FATAL:  role ...`), before any line that merely says error.
      EXCEPTION_LINE = /\A\s*(?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception|NotFound|Bad|NotEstablished|Invalid)\b[^:]*:|\A\s*(?:FATAL|ERROR|PANIC):/
      ERROR_WORD = /error|aborted|failed|fatal/i

      module_function

      # The line of a failed program's log that says why: the first naming an
      # exception or a server's error, else the first saying error, else the last.
      def first_error_line(lines)
        lines = lines.map(&:strip).reject(&:empty?)
        lines.find { |l| l.match?(EXCEPTION_LINE) } || lines.find { |l| l.match?(ERROR_WORD) } || lines.last
      end

      # libpq names each connection after the server config that opened it
      # (PGAPPNAME), so connections are counted per config even while several
      # configs are up at once (rounds keep servers up between rounds).
      def app_name(label) = "arena-#{Digest::SHA256.hexdigest(label)[0, 16]}"

      def app_name_env(label) = {"PGAPPNAME" => app_name(label)}

      # Runs a short program through System::ProcessGroup to its end: its stdout, or an
      # Error with the log's last lines.
      def run(argv, log_path:, env: {}, chdir: Dir.tmpdir, timeout: 60, what: argv.first)
        out_path = "#{log_path}.out"
        File.open(out_path, "w") do |out|
          group = System::ProcessGroup.new(argv, log_path: log_path, env: env, chdir: chdir)
          begin
            group.start(out: out)
            status = group.wait(timeout: timeout)
            raise LoggedError.new("#{what} did not finish within #{timeout} s", log_tail: group.log_tail) if status.nil?
            unless status.is_a?(Process::Status) && status.success?
              why = first_error_line(log_head(log_path))
              raise LoggedError.new("#{what} failed (#{exit_text(status)})#{": #{why}" if why}", log_tail: group.log_tail)
            end
          ensure
            group.stop(grace: 2)
          end
        end
        File.read(out_path)
      end

      def log_head(path)
        File.foreach(path).first(2000)
      rescue SystemCallError
        []
      end

      def exit_text(status)
        return "status unknown" unless status.is_a?(Process::Status)
        status.signaled? ? "killed by signal #{status.termsig}" : "exit #{status.exitstatus}"
      end
    end
  end
end
