# frozen_string_literal: true

require "etc"

module Arena
  module Database
    # A throwaway PostgreSQL (Debian's): initdb into a short temporary
    # directory (its unix socket path must stay under 107 bytes, and the
    # postgres user must reach it), no TCP listener, durability off (a
    # benchmark's data is thrown away), started and stopped through
    # ProcessGroup like every process. initdb and postgres refuse to run as
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
        Database.run(as_owner + [File.join(@bin, "initdb"), "-D", data, "-U", USER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
          log_path: File.join(@run_dir, "initdb.log"), chdir: @socket_dir, what: "initdb")
        @group = ProcessGroup.new(as_owner + [File.join(@bin, "postgres"), "-D", data, "-k", @socket_dir, "-c", "listen_addresses=",
          "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=400"],
          log_path: File.join(@run_dir, "postgres.log"), chdir: @socket_dir).start
        wait_ready
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
        Database.run(["psql", "-X", "-q", "-h", @socket_dir, "-U", USER, "-d", "postgres", "-c", "CREATE DATABASE #{NAME}"],
          log_path: File.join(@run_dir, "load.log"), timeout: 30, what: "createdb")
        Database.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", @socket_dir, "-U", USER, "-d", NAME, "-f", path],
          log_path: File.join(@run_dir, "load.log"), timeout: 120, what: "psql -f #{File.basename(path)}")
      rescue LoggedError => e
        raise LoggedError.new("--database: #{e.message} (log: #{File.join(@run_dir, "load.log")})", log_tail: e.log_tail)
      end

      # [client connections the config labelled `label` holds to the app's
      # database, the database's transactions so far], read with psql (its
      # own connection and transaction not counted).
      def counters(label)
        sql = "SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = '#{NAME}' AND backend_type = 'client backend' " \
          "AND application_name = '#{Database.app_name(label)}'), " \
          "(SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '#{NAME}')"
        out = Database.run(["psql", "-X", "-A", "-t", "-h", @socket_dir, "-U", USER, "-d", NAME, "-c", sql],
          log_path: File.join(@run_dir, "psql.log"), timeout: 10, what: "psql")
        out.strip.split("|").map(&:to_i)
      end

      # Per measurement: how many connections the server config held open
      # at its end, and the database's transactions per completed request.
      # Backends report their counters at most once a second: the reading
      # after waits that long so the last second's transactions are in.
      # Transactions are the database's: other configs up at the same time
      # are idle while this one is measured.
      def watch(label) = Watch.new(self, label)

      Watch = Struct.new(:db, :label, :before) do
        def start
          self.before = db.counters(label)
          self
        end

        # requests: the responses the load brought in, its warm-up's included
        # (the engine counts those apart: estimated from its rate).
        def stop(requests:)
          sleep 1.1
          connections, xacts = db.counters(label)
          # Each psql reading is one transaction of its own.
          done = [xacts - before.last - 1, 0].max
          Results::DatabaseFigures.new(kind: "postgres", connections: connections, transactions: done, requests: requests,
            transactions_per_request: requests.positive? ? (done.to_f / requests).round(2) : nil).freeze
        end
      end

      private

      def owner = @owner ||= Etc.getpwnam("postgres")

      def as_owner
        return [] unless Process.euid.zero?
        ["setpriv", "--reuid=#{owner.uid}", "--regid=#{owner.gid}", "--init-groups", "--"]
      end

      # postmaster.pid's status line says "ready" once it accepts connections.
      def wait_ready(timeout: 30)
        deadline = Clock.now + timeout
        pid_file = File.join(@socket_dir, "data", "postmaster.pid")
        until File.file?(pid_file) && File.read(pid_file).lines[7].to_s.strip == "ready"
          raise LoggedError.new("PostgreSQL exited during start", log_tail: @group.log_tail) unless @group.alive?
          raise LoggedError.new("PostgreSQL not ready after #{timeout} s", log_tail: @group.log_tail) if Clock.now > deadline
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
