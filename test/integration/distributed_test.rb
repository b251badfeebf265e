# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/merge"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "timeout"
require "tmpdir"

module Arena
  # Three hosts on one machine: network namespaces (a server host and two
  # loader hosts) joined by veth pairs to a bridge in a fourth namespace,
  # 1 ms of netem delay on every link, each host running Debian's sshd with
  # keys made for the test. Addresses come from 198.18.0.0/15 (the range set
  # aside for benchmark tests) and exist only inside these namespaces; no
  # traffic leaves them. Everything is removed at the end, even on failure.
  class DistributedTest < Minitest::Test
    ROOT = File.expand_path("../..", __dir__)
    EXE = File.join(ROOT, "exe/arena")
    SSHD = "/usr/sbin/sshd"
    PREFIX = "198.18.77"
    SSH_PORT = 2222

    # The namespaces, sshd in each, and the keys: made once for the file.
    class Lab
      HOSTS = {"srv" => 1, "l1" => 2, "l2" => 3}.freeze

      attr_reader :dir, :id, :no_netem

      def initialize
        @id = "ad#{Process.pid % 100_000}"
        @dir = Dir.mktmpdir("arena-dist-")
        @made = []
        @sshd = {}
      end

      def ns(host) = "#{@id}-#{host}"

      def address(host) = "#{PREFIX}.#{HOSTS.fetch(host)}"

      def url(host) = "ssh://root@#{address(host)}:#{SSH_PORT}"

      def identity = File.join(@dir, "client_key")

      def known_hosts = File.join(@dir, "known_hosts")

      def build
        ip("netns", "add", ns("hub"))
        @made << ns("hub")
        ip("netns", "exec", ns("hub"), "ip", "link", "add", "br0", "type", "bridge")
        ip("netns", "exec", ns("hub"), "ip", "link", "set", "br0", "up")
        HOSTS.each_key { |host| add_host(host) }
        keys
        HOSTS.each_key { |host| start_sshd(host) }
        self
      end

      # Every process inside the namespaces (but the sshd listeners) and its command line.
      def processes(except_sshd: true)
        HOSTS.keys.flat_map do |host|
          pids = IO.popen(["ip", "netns", "pids", ns(host)], err: File::NULL, &:read).split.map(&:to_i)
          pids -= [@sshd[host]] if except_sshd
          pids.filter_map do |pid|
            cmd = File.read("/proc/#{pid}/cmdline").tr("\0", " ").strip
            state = File.read("/proc/#{pid}/stat")[/\) (\w)/, 1]
            "#{host}: #{pid} #{cmd}" unless state == "Z"
          rescue SystemCallError
            nil
          end
        end
      end

      def exec(host, *argv) = ["ip", "netns", "exec", ns(host), *argv]

      def teardown
        @made.reverse_each do |name|
          IO.popen(["ip", "netns", "pids", name], err: File::NULL, &:read).split.each do |pid|
            Process.kill("KILL", pid.to_i)
          rescue SystemCallError
            nil
          end
          system("ip", "netns", "del", name, err: File::NULL)
        end
        @sshd.each_value do |pid|
          Process.wait(pid)
        rescue SystemCallError
          nil
        end
        FileUtils.rm_rf(@dir)
      end

      private

      def ip(*args)
        out, status = Open3.capture2e("ip", *args)
        raise "ip #{args.join(" ")}: #{out}" unless status.success?
      end

      def add_host(host)
        name = ns(host)
        ip("netns", "add", name)
        @made << name
        a = "#{@id}#{host}a"
        b = "#{@id}#{host}b"
        ip("link", "add", a, "type", "veth", "peer", "name", b)
        ip("link", "set", a, "netns", name)
        ip("link", "set", b, "netns", ns("hub"))
        ip("netns", "exec", ns("hub"), "ip", "link", "set", b, "master", "br0", "up")
        ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        ip("netns", "exec", name, "ip", "addr", "add", "#{address(host)}/24", "dev", a)
        ip("netns", "exec", name, "ip", "link", "set", a, "up")
        netem(name, a)
      end

      # 1 ms each way on every link; a kernel built without sch_netem cannot
      # (the reason is kept, and the test of the delay says it).
      def netem(name, dev)
        out, status = Open3.capture2e("ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", dev, "root", "netem", "delay", "1ms")
        @no_netem = "tc netem: #{out.strip} (the kernel has no sch_netem)" unless status.success?
      end

      def keys
        system("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", File.join(@dir, "host_key"), exception: true)
        system("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", identity, exception: true)
        FileUtils.cp("#{identity}.pub", File.join(@dir, "authorized_keys"))
        host_key = File.read(File.join(@dir, "host_key.pub")).split[0, 2].join(" ")
        File.write(known_hosts, HOSTS.each_key.map { |h| "[#{address(h)}]:#{SSH_PORT} #{host_key}\n" }.join)
      end

      def sshd_config(host)
        path = File.join(@dir, "sshd_#{host}.conf")
        File.write(path, <<~CONF)
          Port #{SSH_PORT}
          ListenAddress #{address(host)}
          HostKey #{File.join(@dir, "host_key")}
          PidFile #{File.join(@dir, "sshd_#{host}.pid")}
          AuthorizedKeysFile #{File.join(@dir, "authorized_keys")}
          PermitRootLogin prohibit-password
          PasswordAuthentication no
          KbdInteractiveAuthentication no
          UsePAM no
          StrictModes no
          PrintMotd no
          X11Forwarding no
          AllowTcpForwarding no
          LogLevel ERROR
        CONF
        path
      end

      # sshd needs its privilege-separation directory, /run/sshd: it gets one
      # on a tmpfs in a mount namespace of its own, so nothing is made on
      # the machine itself.
      def start_sshd(host)
        boot = "system('mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', '/run', exception: true); " \
          "Dir.mkdir('/run/sshd', 0o755); exec(*ARGV)"
        log = File.join(@dir, "sshd_#{host}.log")
        @sshd[host] = Process.spawn(*exec(host, "unshare", "--mount", "--propagation", "private", "--",
          RbConfig.ruby, "-e", boot, SSHD, "-D", "-e", "-f", sshd_config(host)), in: File::NULL, out: log, err: log,
          pgroup: true)
        deadline = Clock.now + 10
        until system(*exec(host, RbConfig.ruby, "-rsocket", "-e",
          "Socket.tcp('#{address(host)}', #{SSH_PORT}, connect_timeout: 0.2).close"), err: File::NULL)
          raise "sshd in #{host} did not start: #{File.read(log)}" if Clock.now > deadline
          sleep 0.1
        end
      end
    end

    def self.lab = @lab

    def self.skip_reason
      return "needs root (ip netns, tc, sshd)" unless Process.uid.zero?
      return "no `ip netns` (iproute2)" unless system("ip", "netns", "list", out: File::NULL, err: File::NULL)
      return "no sshd at #{SSHD} (apt-get install openssh-server)" unless File.executable?(SSHD)
      return "no ssh client" unless system("ssh", "-V", out: File::NULL, err: File::NULL)
      "engine binary missing: make -C ext/arena_load" unless File.executable?(TestHelp.engine_path)
    end

    def self.lab!
      @lab ||= begin
        lab = Lab.new
        Minitest.after_run { lab.teardown }
        at_exit { lab.teardown }
        lab.build
      rescue
        lab.teardown
        raise
      end
    end

    def setup
      reason = self.class.skip_reason
      skip reason if reason
      @lab = self.class.lab!
      @out = File.join(@lab.dir, "run-#{name}")
    end

    def teardown
      return unless @lab
      deadline = Clock.now + 20
      sleep 0.2 until @lab.processes.empty? || Clock.now > deadline
      left = @lab.processes
      assert_empty left, "processes left in the namespaces"
    end

    def arena_in(host, *args, timeout: 240)
      argv = @lab.exec(host, RbConfig.ruby, EXE, "run", *args, "--out", @out,
        "--ssh-identity", @lab.identity, "--ssh-known-hosts", @lab.known_hosts)
      Timeout.timeout(timeout) { Open3.capture3(*argv, chdir: ROOT) }
    end

    def results = JSON.parse(File.read(File.join(@out, "results.json")))

    def measured(doc) = doc["measurements"].select { |m| m["load"] }

    def test_servers_on_a_remote_host_puma_and_unicorn_with_no_errors
      _, err, status = arena_in("l1", "--server-host", @lab.url("srv"), "--servers", "puma:workers=2 unicorn:workers=2",
        "--workload", "server", "-c", "8", "-d", "1", "-w", "0.3")
      assert status.success?, err
      assert_match(/\Adistributed: servers on #{Regexp.escape(@lab.url("srv"))} \(#{@lab.address("srv")}\).*--allow-remote/, err)
      doc = results
      assert_equal @lab.address("srv"), doc.dig("environment", "server_host", "address"), "server host environment"
      assert doc.dig("environment", "server_host", "environment", "kernel"), "server host environment recorded"
      assert doc.dig("environment", "kernel"), "loader host environment recorded"
      rows = measured(doc)
      assert_equal %w[puma unicorn], rows.map { |m| m["server"][/\A\w+/] }.sort
      rows.each do |m|
        assert_equal 0, m.dig("load", "errors", "total"), "#{m["server"]}: errors"
        assert_operator m.dig("load", "requests", "completed"), :>, 50, m["server"]
        assert_includes m["engine_argv"], "--allow-remote"
        assert_includes m["engine_argv"].last, @lab.address("srv")
        assert_operator m.dig("probes", "procs_max").to_i, :>=, 3, "#{m["server"]}: probes sampled on the server host"
      end
    end

    def test_crash_scenario_on_a_remote_host
      _, err, status = arena_in("l1", "--server-host", @lab.url("srv"), "--servers", "puma:workers=2",
        "--workload", "server", "--scenario", "crash", "-c", "4", "-d", "2", "-w", "0.2")
      assert status.success?, err
      crash = measured(results).find { |m| m["scenario"] == "crash" }
      refute_nil crash, err
      assert_kind_of Integer, crash.dig("extra", "victim"), "a worker was killed on the server host"
      assert_equal "replaced", crash.dig("extra", "outcome")
    end

    def test_two_loader_hosts_merge_exactly
      _, err, status = arena_in("l1", "--server-host", @lab.url("srv"), "--loader-hosts", "#{@lab.url("l1")},#{@lab.url("l2")}",
        "--servers", "puma:workers=2", "--workload", "server", "-c", "6", "-d", "1.5", "-w", "0.2")
      assert status.success?, err
      m = measured(results).first
      files = Dir[File.join(@out, "loaders-*.json")]
      refute_empty files
      saved = JSON.parse(File.read(files.min))
      loaders = saved.fetch("loaders")
      assert_equal 2, loaders.size
      assert_equal [3, 3], loaders.map { |d| d.dig("connections", "requested") }, "connections split evenly"
      # The merged document's percentiles are those of the exact merge of both engines' histograms...
      exact = Remote::Histogram.merge(loaders.map { |d| Remote::Histogram.decode(d["latency_histogram"]) })
      assert_equal exact.latency_us.slice("count", "p50", "p90", "p99", "p999", "max"),
        m.dig("load", "latency_us").slice("count", "p50", "p90", "p99", "p999", "max")
      # ...which is what the engine's own --merge says of the same two documents.
      paths = loaders.each_with_index.map { |d, i| File.join(@out, "loader-#{i}.json").tap { |p| File.write(p, JSON.generate(d)) } }
      engine, merr, mstatus = Open3.capture3(TestHelp.engine_path, "--merge", *paths)
      assert mstatus.success?, merr
      assert_equal JSON.parse(engine)["latency_us"], m.dig("load", "latency_us")
      # The timelines add up second by second.
      m.dig("load", "timeline").each_with_index do |second, t|
        assert_equal loaders.sum { |d| d["timeline"][t]&.fetch("completed") || 0 }, second["completed"], "second #{t}"
      end
      assert_equal loaders.sum { |d| d.dig("requests", "completed") }, m.dig("load", "requests", "completed")
      assert_equal 0, m.dig("load", "errors", "total")
      assert_equal 2, results.dig("environment", "loader_hosts").size
    end

    def test_cutting_ssh_mid_run_leaves_nothing_behind
      argv = @lab.exec("l1", RbConfig.ruby, EXE, "run", "--server-host", @lab.url("srv"), "--servers", "puma:workers=2",
        "--workload", "server", "-c", "4", "-d", "20", "-w", "0", "--out", @out,
        "--ssh-identity", @lab.identity, "--ssh-known-hosts", @lab.known_hosts)
      log = File.join(@lab.dir, "cut.log")
      pid = Process.spawn(*argv, chdir: ROOT, in: File::NULL, out: log, err: log, pgroup: true)
      server_up = wait_for(30) { @lab.processes.any? { |p| p.start_with?("srv:") && p.include?("puma") } }
      assert server_up, "server never started: #{File.read(log)}"
      sleep 1
      ssh = @lab.processes.find { |p| p.start_with?("l1:") && p =~ /\d+ ssh .*#{Regexp.escape(@lab.address("srv"))}/ }
      refute_nil ssh, @lab.processes.join("\n")
      Process.kill("KILL", ssh[/: (\d+)/, 1].to_i)
      gone = wait_for(30) { @lab.processes.none? { |p| p.start_with?("srv:") } }
      assert gone, "left on the server host: #{@lab.processes.join("\n")}"
      status = Timeout.timeout(60) { Process.wait2(pid).last }
      refute status.success?, "a run whose server host was cut off is not a success"
    ensure
      if pid
        begin
          Process.kill("KILL", -pid)
          Process.wait(pid)
        rescue SystemCallError
          nil
        end
      end
    end

    def test_a_version_mismatch_is_refused_in_one_line
      _, err, status = arena_in("l1", "--server-host", @lab.url("srv"), "--servers", "puma", "-d", "1",
        "--remote-arena", "#{RbConfig.ruby} -e 'v = STDIN.gets; puts %q({\"id\":1,\"ok\":false,\"error\":\"version mismatch: agent is arena 0.0.0\"})' #{EXE} agent")
      refute status.success?
      assert_equal 2, err.lines.size, err
      assert_match(/version mismatch: agent is arena 0\.0\.0/, err.lines.last)
    end

    private

    def wait_for(seconds)
      deadline = Clock.now + seconds
      until yield
        return false if Clock.now > deadline
        sleep 0.1
      end
      true
    end
  end
end
