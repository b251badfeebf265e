# frozen_string_literal: true

require "fileutils"
require "open3"
require "rbconfig"
require "tmpdir"

module Arena
  # Three hosts on one machine: network namespaces (a server host and two
  # loader hosts) joined by veth pairs to a bridge in a fourth namespace, 1 ms
  # of netem delay on every link, each host running Debian's sshd with keys
  # made for the test in its own directory. Addresses come from 198.18.0.0/15
  # (the range set aside for benchmark tests) and exist only inside these
  # namespaces; nothing is installed or changed outside them and the directory.
  # `teardown` kills whatever is left in them and deletes them.
  class NetnsLab
    SSHD = "/usr/sbin/sshd"
    PREFIX = "198.18.77"
    SSH_PORT = 2222
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

    # The pids inside one host's namespace (every host's without one).
    def pids(host = nil)
      return HOSTS.keys.flat_map { |h| pids(h) } unless host
      IO.popen(["ip", "netns", "pids", ns(host)], err: File::NULL, &:read).split.map(&:to_i)
    end

    # Every process inside the namespaces (but the sshd listeners) and its command line.
    def processes(except_sshd: true)
      HOSTS.keys.flat_map do |host|
        pids = pids(host)
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
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
      until system(*exec(host, RbConfig.ruby, "-rsocket", "-e",
        "Socket.tcp('#{address(host)}', #{SSH_PORT}, connect_timeout: 0.2).close"), err: File::NULL)
        raise "sshd in #{host} did not start: #{File.read(log)}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        sleep 0.1
      end
    end
  end
end
