# frozen_string_literal: true

require_relative "../core"
require_relative "../plan/envelope"
require_relative "cgroup"

module Arena
  module Launch
    # Where this machine's cgroups are and whether Arena may make its own:
    # cgroup v2 when it is the hierarchy that holds the cpu and memory
    # controllers, else the v1 `cpu` and `memory` hierarchies. Each server
    # run gets a child of the cgroup Arena itself runs in (so a container's
    # or a sandbox's own limits still hold over it). Every path is read from
    # the files given, so unit tests run it on a fake tree.
    class Cgroups
      Mount = Struct.new(:type, :path, :options, keyword_init: true)

      # An Arena-made cgroup name: one per server run, unique in this process.
      @count = 0
      LOCK = Mutex.new

      # This machine's hierarchy, detected once (raises UsageError when none).
      def self.current = LOCK.synchronize { @current ||= detect }

      def self.next_name = LOCK.synchronize { "arena-#{Process.pid}-#{@count += 1}" }

      # -> V1 or V2 ready to `create`, or raises UsageError with the one line
      # that says why not (exit 2: the run cannot be what was asked).
      def self.detect(mounts: "/proc/self/mounts", self_cgroup: "/proc/self/cgroup", euid: Process.euid)
        raise UsageError, "--envelope needs root to make cgroups (run arena as root, or drop --envelope)" unless euid.zero?
        table = read_mounts(mounts)
        memberships = read_memberships(self_cgroup)
        v2 = V2.find(table, memberships)
        return v2 if v2
        v1 = V1.find(table, memberships)
        return v1 if v1
        raise UsageError, "--envelope needs cgroup v2 with the cpu and memory controllers, or the v1 cpu and memory " \
          "hierarchies, mounted (none found in #{mounts})"
      end

      def self.read_mounts(path)
        File.readlines(path).filter_map do |line|
          _, dir, type, options = line.split
          next unless %w[cgroup cgroup2].include?(type)
          Mount.new(type: type, path: dir.gsub("\\040", " "), options: options.split(",")).freeze
        end
      rescue SystemCallError => e
        raise UsageError, "--envelope cannot read the mounted cgroups (#{e.message})"
      end

      # {"0" => "/a/b"} for v2's "0::/a/b", {"memory" => "/x"} per v1 controller.
      def self.read_memberships(path)
        File.readlines(path).each_with_object({}) do |line, found|
          id, controllers, where = line.chomp.split(":", 3)
          next unless where
          (controllers.empty? ? ["v2:#{id}"] : controllers.split(",")).each { |c| found[c] = where }
        end
      rescue SystemCallError
        {}
      end

      # v2: one hierarchy; cpu.max, memory.max, cpu.stat, memory.peak,
      # memory.events. Controllers must be enabled for the children.
      class V2
        def self.find(table, memberships)
          mount = table.find { |m| m.type == "cgroup2" } or return nil
          controllers = Launch::Cgroup.read(File.join(mount.path, "cgroup.controllers")).to_s.split
          return nil unless (%w[cpu memory] - controllers).empty?
          new(parent: File.join(mount.path, memberships["v2:0"].to_s))
        end

        attr_reader :parent

        def initialize(parent:)
          @parent = parent
        end

        def version = 2

        # The parent hands cpu and memory down to its children (the kernel
        # refuses where the parent itself holds processes: said in one line).
        def create(envelope)
          enabled = Launch::Cgroup.read(File.join(@parent, "cgroup.subtree_control")).to_s.split
          missing = %w[cpu memory] - enabled
          Launch::Cgroup.write(File.join(@parent, "cgroup.subtree_control"), missing.map { |c| "+#{c}" }.join(" ")) unless missing.empty?
          dir = File.join(@parent, Launch::Cgroups.next_name)
          Dir.mkdir(dir)
          Launch::Cgroup.new(envelope: envelope, dirs: [dir], files: files(dir), version: 2).limit!
        rescue SystemCallError => e
          raise Error, "envelope: cannot make a cgroup under #{@parent} (#{e.message})"
        end

        def files(dir)
          {procs: [File.join(dir, "cgroup.procs")], cpu_stat: File.join(dir, "cpu.stat"), peak: File.join(dir, "memory.peak"),
           events: File.join(dir, "memory.events"), current: File.join(dir, "memory.current"),
           cpu_max: File.join(dir, "cpu.max"), memory_max: File.join(dir, "memory.max"), swap_max: File.join(dir, "memory.swap.max")}
        end
      end

      # v1: the cpu and memory controllers in hierarchies of their own (or
      # sharing one mount, as cpu,cpuacct often do).
      class V1
        def self.find(table, memberships)
          cpu = table.find { |m| m.type == "cgroup" && m.options.include?("cpu") }
          memory = table.find { |m| m.type == "cgroup" && m.options.include?("memory") }
          return nil unless cpu && memory
          new(cpu: File.join(cpu.path, memberships["cpu"].to_s), memory: File.join(memory.path, memberships["memory"].to_s))
        end

        def initialize(cpu:, memory:)
          @cpu = cpu
          @memory = memory
        end

        def version = 1

        def parent = @memory

        def create(envelope)
          name = Launch::Cgroups.next_name
          dirs = [File.join(@cpu, name), File.join(@memory, name)].uniq
          made = []
          dirs.each { |dir| Dir.mkdir(dir).then { made << dir } }
          cpu, memory = dirs.first, dirs.last
          Launch::Cgroup.new(envelope: envelope, dirs: dirs, version: 1, files: {
            procs: dirs.map { |d| File.join(d, "cgroup.procs") }, cpu_stat: File.join(cpu, "cpu.stat"),
            peak: File.join(memory, "memory.max_usage_in_bytes"), events: File.join(memory, "memory.oom_control"),
            current: File.join(memory, "memory.usage_in_bytes"), quota: File.join(cpu, "cpu.cfs_quota_us"),
            period: File.join(cpu, "cpu.cfs_period_us"), limit: File.join(memory, "memory.limit_in_bytes"),
            memsw: File.join(memory, "memory.memsw.limit_in_bytes")
          }).limit!
        rescue SystemCallError => e
          made&.reverse_each { |dir| Launch::Cgroup.rmdir(dir) }
          raise Error, "envelope: cannot make a cgroup under #{@memory} (#{e.message})"
        end
      end
    end
  end
end
