# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "stringio"

# The envelope's value, its place in labels and plans, and the cgroup code
# on fake cgroupfs trees made here (v2 as a systemd machine mounts it, v1 as
# this machine does): what is written where, what is read back, what is
# removed, and the one line when there are no cgroups.
class EnvelopeTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("envelope-test")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end

  def test_parse_label_and_units
    e = Arena::Plan::Envelope.parse("cpus=0.5,memory=512MiB")
    assert_equal 0.5, e.cpus
    assert_equal 512 * 1024**2, e.memory_bytes
    assert_equal "@cpus=0.5,memory=512MiB", e.suffix
    assert_equal 50_000, e.quota_us
    assert_equal "@cpus=2,memory=1GiB", Arena::Plan::Envelope.parse(["cpus=2", "memory=1g"]).suffix
    assert_equal "memory=1000000000", Arena::Plan::Envelope.parse("memory=1GB").to_s
    assert_equal "", Arena::Plan::Envelope::NONE.suffix
  end

  def test_bad_envelopes_are_one_line_usage_errors
    {"cpus=0" => /cpus must be a number of cores/, "cpus=lots" => /cpus must be/, "memory=1MiB" => /at least 16MiB/,
     "memory=big" => /a size like 512MiB/, "disk=1G" => /unknown envelope setting "disk=1G"/}.each do |text, message|
      error = assert_raises(Arena::UsageError) { Arena::Plan::Envelope.parse(text) }
      assert_match message, error.message
    end
  end

  def test_the_flag_reaches_every_server_and_a_servers_own_tail_wins
    with_cgroups do
      plan = Arena::TestHelp.plan("--servers", "puma:workers=1 unicorn:workers=1@memory=256MiB", "--envelope", "cpus=1,memory=512MiB")
      assert_equal ["puma:workers=1,threads=5,preload=false@cpus=1,memory=512MiB",
        "unicorn:workers=1,preload=true,timeout=60@cpus=1,memory=256MiB"], plan.servers.map(&:label)
      assert_equal({"cpus" => 1.0, "memory_bytes" => 512 * 1024**2, "label" => "cpus=1,memory=512MiB"}, plan.to_h[:servers].first[:envelope])
    end
  end

  def test_arena_yml_takes_a_mapping_or_a_string_and_the_flag_replaces_it
    with_cgroups do
      Dir.chdir(@tmp) do
        File.write("arena.yml", "servers: [puma]\nenvelope: {cpus: 0.5, memory: 256MiB}\n")
        assert_equal "@cpus=0.5,memory=256MiB", Arena::TestHelp.plan.servers.first.envelope.suffix
        assert_equal "@cpus=2", Arena::TestHelp.plan("--envelope", "cpus=2").servers.first.envelope.suffix
        File.write("arena.yml", "servers: [puma]\nenvelope: memory=lots\n")
        error = assert_raises(Arena::UsageError) { Arena::TestHelp.plan }
        assert_match(/arena.yml:2: envelope: --envelope memory takes a size like 512MiB/, error.message)
      end
    end
  end

  def test_a_label_is_a_valid_servers_spec
    label = "puma:workers=2,threads=5,preload=false+yjit@cpus=0.5,memory=512MiB"
    skip "this Ruby has no YJIT" unless defined?(RubyVM::YJIT)
    with_cgroups { assert_equal label, Arena::TestHelp.plan("--servers", label).servers.first.label }
  end

  def test_a_quota_above_the_servers_cores_is_said_once
    notes = Arena::Plan::Envelope.parse("cpus=2").notes(Arena::Plan::Machine.new(cores: 2).freeze)
    assert_match(/cpus=2 is more than the 1 core\(s\) the server runs on here \(the engine has the last core/, notes.first)
    assert_empty Arena::Plan::Envelope.parse("cpus=1").notes(Arena::Plan::Machine.new(cores: 2).freeze)
  end

  def test_no_cgroups_is_one_line_and_exit_2
    mounts = write("mounts", "proc /proc proc rw 0 0\n")
    error = assert_raises(Arena::UsageError) { Arena::Launch::Cgroups.detect(mounts: mounts, self_cgroup: write("cg", "0::/\n"), euid: 0) }
    assert_match(/--envelope needs cgroup v2 with the cpu and memory controllers, or the v1 cpu and memory hierarchies/, error.message)
    error = assert_raises(Arena::UsageError) { Arena::Launch::Cgroups.detect(euid: 1000) }
    assert_match(/--envelope needs root/, error.message)

    err = StringIO.new
    Arena::Launch::Cgroups.stub(:current, -> { raise Arena::UsageError, "--envelope needs root to make cgroups" }) do
      status = Arena::CLI.new(%w[run --servers puma --envelope cpus=1 --out] + [File.join(@tmp, "out")], out: StringIO.new, err: err).run
      assert_equal 2, status
    end
    assert_equal ["arena: --envelope needs root to make cgroups"], err.string.lines.map(&:chomp)
  end

  def test_v2_on_a_fake_tree
    root = File.join(@tmp, "cg2")
    parent = File.join(root, "user.slice", "arena.scope")
    FileUtils.mkdir_p(parent)
    File.write(File.join(root, "cgroup.controllers"), "cpuset cpu io memory pids\n")
    File.write(File.join(parent, "cgroup.subtree_control"), "")
    mounts = write("mounts", "cgroup2 #{root} cgroup2 rw,nosuid 0 0\n")
    hierarchy = Arena::Launch::Cgroups.detect(mounts: mounts, self_cgroup: write("cg", "0::/user.slice/arena.scope\n"), euid: 0)
    assert_equal 2, hierarchy.version

    cgroup = hierarchy.create(Arena::Plan::Envelope.parse("cpus=0.5,memory=256MiB"))
    dir = cgroup.dirs.first
    assert_equal parent, File.dirname(dir)
    assert_match(/\Aarena-#{Process.pid}-\d+\z/o, File.basename(dir))
    assert_equal "+cpu +memory", File.read(File.join(parent, "cgroup.subtree_control"))
    assert_equal "50000 100000", File.read(File.join(dir, "cpu.max"))
    assert_equal (256 * 1024**2).to_s, File.read(File.join(dir, "memory.max"))
    assert_equal ["/bin/sh", "-c", Arena::Launch::Cgroup::ENTER, "arena-envelope", File.join(dir, "cgroup.procs"), "--", "puma", "-p", "0"],
      cgroup.wrap(%w[puma -p 0])

    File.write(File.join(dir, "cpu.stat"), "usage_usec 900\nnr_periods 20\nnr_throttled 5\nthrottled_usec 250000\n")
    File.write(File.join(dir, "memory.events"), "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    File.write(File.join(dir, "memory.peak"), "104857600\n")
    before = cgroup.read
    File.write(File.join(dir, "cpu.stat"), "nr_periods 30\nnr_throttled 11\nthrottled_usec 1250000\n")
    File.write(File.join(dir, "memory.events"), "oom_kill 3\n")
    delta = cgroup.read.since(before)
    assert_equal [10, 6, 1_000_000, 2, 104_857_600], [delta.periods, delta.throttled_periods, delta.throttled_us, delta.oom_kills, delta.peak_bytes]
    assert_equal "since-start", cgroup.reset_peak

    Dir.glob(File.join(dir, "*")).each { |f| File.unlink(f) } # a real cgroupfs directory empties itself
    assert cgroup.remove
    refute File.exist?(dir)
  end

  def test_v2_is_skipped_when_its_controllers_are_elsewhere_and_v1_is_used
    unified = File.join(@tmp, "unified")
    cpu = File.join(@tmp, "cpu")
    memory = File.join(@tmp, "memory", "sandbox")
    [unified, cpu, memory].each { |d| FileUtils.mkdir_p(d) }
    File.write(File.join(unified, "cgroup.controllers"), "\n")
    mounts = write("mounts", "cgroup2 #{unified} cgroup2 rw 0 0\ncgroup #{cpu} cgroup rw,cpu 0 0\n" \
      "cgroup #{File.dirname(memory)} cgroup rw,memory 0 0\n")
    hierarchy = Arena::Launch::Cgroups.detect(mounts: mounts, self_cgroup: write("cg", "4:memory:/sandbox\n1:cpu:/\n0::/\n"), euid: 0)
    assert_equal 1, hierarchy.version
    cgroup = hierarchy.create(Arena::Plan::Envelope.parse("cpus=1.5,memory=64MiB"))
    cpu_dir, memory_dir = cgroup.dirs
    assert_equal [cpu, memory], [File.dirname(cpu_dir), File.dirname(memory_dir)]
    assert_equal ["100000", "150000"], %w[cpu.cfs_period_us cpu.cfs_quota_us].map { |f| File.read(File.join(cpu_dir, f)) }
    assert_equal (64 * 1024**2).to_s, File.read(File.join(memory_dir, "memory.limit_in_bytes"))
    refute File.exist?(File.join(memory_dir, "memory.memsw.limit_in_bytes")), "no swap accounting: nothing written for it"
    File.write(File.join(cpu_dir, "cpu.stat"), "nr_periods 4\nnr_throttled 2\nthrottled_time 3000000\n")
    File.write(File.join(memory_dir, "memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    reading = cgroup.read
    assert_equal [4, 2, 3000, 2], [reading.periods, reading.throttled_periods, reading.throttled_us, reading.oom_kills]
    assert_equal "measurement", cgroup.reset_peak
  end

  def test_a_kernel_refusal_is_an_error_line_and_leaves_no_directory
    root = File.join(@tmp, "cg2")
    FileUtils.mkdir_p(root)
    File.write(File.join(root, "cgroup.controllers"), "cpu memory\n")
    File.write(File.join(root, "cgroup.subtree_control"), "cpu memory\n")
    hierarchy = Arena::Launch::Cgroups::V2.new(parent: root)
    File.stub(:write, ->(path, _) { raise Errno::EBUSY, path if path.end_with?("memory.max") }) do
      error = assert_raises(Arena::Error) { hierarchy.create(Arena::Plan::Envelope.parse("memory=64MiB")) }
      assert_match(/envelope: cannot write 67108864 to .*memory.max/, error.message)
    end
    assert_empty Dir.glob(File.join(root, "arena-*"))
  end

  def test_figures_round_trip_through_the_results_file
    figures = Arena::Results::EnvelopeFigures.new(limits: "memory=64MiB", memory_bytes: 64 * 1024**2, cgroup_version: 1, periods: 10,
      throttled_periods: 4, throttled_s: 0.2, peak_bytes: 64 * 1024**2, peak_scope: "measurement", oom_kills: 2, oom_at_s: [1.2, 3.4], seconds: 5.0).freeze
    record = figures.to_record
    assert_equal 40.0, record["throttled_pct"]
    assert_equal 64.0, record["peak_mib"]
    assert_equal figures, Arena::Results::EnvelopeFigures.from_h(JSON.parse(JSON.generate(record)))
  end

  private

  # A plan with an envelope checks the machine's cgroups: here, a hierarchy that is never asked to create.
  def with_cgroups(&block)
    Arena::Launch::Cgroups.stub(:current, Object.new, &block)
  end

  def write(name, text)
    File.join(@tmp, name).tap { |path| File.write(path, text) }
  end
end
