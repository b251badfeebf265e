# frozen_string_literal: true

require "etc"
require_relative "../core"
require_relative "../results/database_figures"
require_relative "../support/clock"
require_relative "../system/process_group"
require_relative "database_program"

module Arena
  module Launch
    module Database
      # A throwaway PostgreSQL (Debian's): initdb into a short temporary
      # directory (its unix socket path must stay under 107 bytes, and the
      # postgres user must reach it), no TCP listener, durability off (a
      # benchmark's data is thrown away), started and stopped through
      # System::ProcessGroup like every process. initdb and postgres refuse to run as
      # root, so as root they run as the `postgres` user (setpriv, no shell);
      # its log is in the run directory.
      class Postgres
        NAME = "arena_bench"
        USER = "arena"

        def self.bin_dir = Dir.glob("/usr/lib/postgresql/*/bin").select { |d| File.executable?(File.join(d, "initdb")) }.max_by { |d| d[/\d+/].to_i }

        attr_reader :socket_dir

        def initialize(run_dir:)
          @run_dir = run_dir
          @bin = self.class.bin_dir
        end

        def start
          FileUtils.mkdir_p(@run_dir)
          @socket_dir = Dir.mktmpdir("arena-pg-")
          File.chown(owner.uid, owner.gid, @socket_dir) if Process.euid.zero?
          data = File.join(@socket_dir, "data")
          DatabaseProgram.run(as_owner + [File.join(@bin, "initdb"), "-D", data, "-U", USER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
            log_path: File.join(@run_dir, "initdb.log"), chdir: @socket_dir, what: "initdb")
          @group = System::ProcessGroup.new(as_owner + [File.join(@bin, "postgres"), "-D", data, "-k", @socket_dir, "-c", "listen_addresses=",
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=400",
            *statements_options],
            log_path: File.join(@run_dir, "postgres.log"), chdir: @socket_dir).start
          wait_ready
          count_statements if statements?
          self
        rescue
          stop
          raise
        end

        def stop
          @group&.stop(grace: 6)
          FileUtils.rm_rf(@socket_dir) if @socket_dir
          @group = @socket_dir = nil
        end

        def env = {"DATABASE_URL" => "postgres:///#{NAME}?host=#{@socket_dir}&user=#{USER}"}

        def describe = "throwaway PostgreSQL #{File.basename(File.dirname(@bin))} on a unix socket in #{@socket_dir}"

        def kind = "postgres"

        def to_h = {"kind" => kind, "version" => File.basename(File.dirname(@bin)), "socket_dir" => @socket_dir}

        def pids = @group ? @group.tree : []

        # An app's own schema and rows (arena-db.sql), loaded once into a new
        # database, stopping at the first error. psql is a client: it runs as
        # Arena's user and reads the file where it is.
        def load_sql(path)
          DatabaseProgram.run(["psql", "-X", "-q", "-h", @socket_dir, "-U", USER, "-d", "postgres", "-c", "CREATE DATABASE #{NAME}"],
            log_path: File.join(@run_dir, "load.log"), timeout: 30, what: "createdb")
          DatabaseProgram.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", @socket_dir, "-U", USER, "-d", NAME, "-f", path],
            log_path: File.join(@run_dir, "load.log"), timeout: 120, what: "psql -f #{File.basename(path)}")
        rescue LoggedError => e
          raise LoggedError.new("--database: #{e.message} (log: #{File.join(@run_dir, "load.log")})", log_tail: e.log_tail)
        end

        # [client connections the config labelled `label` holds to the app's
        # database, the statements run in it so far (nil without
        # pg_stat_statements)], read with psql from the `postgres` database, so
        # its own connection and statement are not counted.
        # Statements, not pg_stat_database's transactions: a backend reports
        # those at most once a second and, once idle, the rest 10 s later
        # (PostgreSQL 15's pgstat_report_stat), so a 1.3 s load read one
        # SELECT a request as 0.41 (Pitchfork, fresh-check at 583da4b).
        # pg_stat_statements counts each statement in shared memory as it
        # ends: read at once, no wait.
        def counters(label)
          active = "SELECT count(*) FROM pg_stat_activity WHERE datname = '#{NAME}' AND backend_type = 'client backend' " \
            "AND application_name = '#{DatabaseProgram.app_name(label)}'"
          statements = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '#{NAME}')"
          sql = statements? ? "SELECT (#{active}), (#{statements})" : active
          out = DatabaseProgram.run(["psql", "-X", "-A", "-t", "-h", @socket_dir, "-U", USER, "-d", "postgres", "-c", sql],
            log_path: File.join(@run_dir, "psql.log"), timeout: 10, what: "psql")
          connections, count = out.strip.split("|")
          [Integer(connections), count && Integer(count)]
        end

        # Per measurement: how many connections the server config held open
        # at its end, and the app's statements per completed request. The
        # statements are the database's: other configs up at the same time
        # are idle while this one is measured.
        def watch(label) = Watch.new(self, label)

        Watch = Struct.new(:db, :label, :before) do
          def start
            self.before = db.counters(label)
            self
          end

          # requests: those the load sent since start, its warm-up's included
          # (the engine counts those apart).
          def stop(requests:)
            connections, count = db.counters(label)
            done = count && before.last && [count - before.last, 0].max
            Results::DatabaseFigures.new(kind: "postgres", connections: connections, queries: done, requests: requests,
              queries_per_request: (done && requests.positive?) ? (done.to_f / requests).round(2) : nil).freeze
          end
        end

        # pg_stat_statements is in Debian's postgresql package; a PostgreSQL
        # without it still runs, and counts connections only.
        def statements? = File.exist?(File.join(File.dirname(@bin), "lib", "pg_stat_statements.so"))

        private

        def statements_options = statements? ? ["-c", "shared_preload_libraries=pg_stat_statements"] : []

        # The view lives in the `postgres` database and sees every database.
        def count_statements
          DatabaseProgram.run(["psql", "-X", "-q", "-h", @socket_dir, "-U", USER, "-d", "postgres", "-c", "CREATE EXTENSION pg_stat_statements"],
            log_path: File.join(@run_dir, "psql.log"), timeout: 30, what: "CREATE EXTENSION pg_stat_statements")
        end

        def owner = @owner ||= Etc.getpwnam("postgres")

        def as_owner
          return [] unless Process.euid.zero?
          ["setpriv", "--reuid=#{owner.uid}", "--regid=#{owner.gid}", "--init-groups", "--"]
        end

        # postmaster.pid's status line says "ready" once it accepts connections.
        def wait_ready(timeout: 30)
          deadline = Support::Clock.now + timeout
          pid_file = File.join(@socket_dir, "data", "postmaster.pid")
          until File.file?(pid_file) && File.read(pid_file).lines[7].to_s.strip == "ready"
            raise LoggedError.new("PostgreSQL exited during start", log_tail: @group.log_tail) unless @group.alive?
            raise LoggedError.new("PostgreSQL not ready after #{timeout} s", log_tail: @group.log_tail) if Support::Clock.now > deadline
            sleep 0.05
          end
        end
      end

      # A SQLite file in the run directory.
      class Sqlite
        def initialize(run_dir:)
          @run_dir = run_dir
        end

        def start
          FileUtils.mkdir_p(@run_dir)
          self
        end

        def stop = nil

        def path = File.join(@run_dir, "arena.sqlite3")

        def env = {"DATABASE_URL" => "sqlite3:#{path}"}

        def describe = "SQLite file #{path}"

        def kind = "sqlite"

        def to_h = {"kind" => kind, "path" => path}

        def pids = []

        def watch(_label) = nil
      end
    end
  end
end
