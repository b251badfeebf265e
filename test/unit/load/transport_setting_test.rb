# frozen_string_literal: true

require "test_helper"
require "arena"
require "tmpdir"

module Arena
  # The transport is a load setting (issue 36): its rows in Load::TABLE give
  # the flags, the arena.yml keys and the plan's Transport, built once.
  class TransportSettingTest < Minitest::Test
    def setup = @dir = Dir.mktmpdir("transport")

    def teardown = FileUtils.rm_rf(@dir)

    def plan(*flags) = Planner::Builder.new(machine: Plan::Machine.new(cores: 2)).parse(["--servers", "puma", "--out", @dir, *flags], banner: "test").build

    def test_the_flags_come_from_the_table
      assert_equal %w[--transport --h2-streams --tls-resume], %i[transport h2_streams tls_resume].map { |n| Load.setting(n).switch }
      skip "nginx is not installed" unless Fronts::Nginx.binary
      t = plan("--front", "nginx", "--transport", "h2", "--h2-streams", "4", "--tls-resume").transport
      assert_equal ["h2", 4, true], [t.name, t.h2_streams, t.tls_resume]
      assert_equal "h2", plan("--front", "nginx", "--transport", "h2").load.transport
    end

    def test_arena_yml_sets_the_transport_under_load
      skip "nginx is not installed" unless Fronts::Nginx.binary
      path = File.join(@dir, "arena.yml")
      File.write(path, "load:\n  transport: tls\n  tls_resume: on\n")
      t = plan("--front", "nginx", "--config", path).transport
      assert_equal ["tls", true], [t.name, t.tls_resume]
      assert_equal "h2", plan("--front", "nginx", "--config", path, "--transport", "h2").transport.name, "a flag over the file"
    end

    # The engine's TLS and HTTP/2 flags come from one place (issue 36): the
    # load's rows give the Transport value every engine run carries, and
    # Load::Engine#argv alone turns it into flags, the transport check's too.
    def test_the_engine_flags_are_made_once_from_the_rows
      load = Load::Options.new(**Load.defaults.merge(transport: "h2", h2_streams: 4, tls_resume: true)).freeze
      assert_equal Load::Transport.parse("h2", h2_streams: 4, tls_resume: true), load.engine_settings[:transport]
      engine = Load::Engine.new(dir: @dir, path: "/bin/true", machine: Plan::Machine.new(cores: 1, shared: true))
      argv = engine.argv("https://127.0.0.1:1/", Load::Settings.build(**load.engine_settings, cacert: "/ca.pem"))
      assert_equal %w[--http2 --h2-streams 4 --tls-resume --cacert /ca.pem], argv[argv.index("--http2"), 6]
      plain = engine.argv("http://127.0.0.1:1/", Load::Settings.build(**Load::Options.new(**Load.defaults).engine_settings, cacert: "/ca.pem"))
      assert_empty plain & %w[--http2 --h2-streams --tls-resume --cacert]
      bind = System::Bind.tcp(port: 1).with_tls(:self_signed)
      check = Verify::TransportCheck.new(transport: Load::Transport.parse("h2"), engine_path: "/bin/true").argv(bind, "/x")
      assert_equal ["/bin/true", "--json"], check.first(2)
      assert_equal ["--http2", "--h2-streams", "1", "--histograms", "https://127.0.0.1:1/x"], check.last(5)
      assert_equal [%w[-c 1], %w[-d 2], %w[--timeout 5], %w[-n 4], %w[--expect-status any]], [%w[-c], %w[-d], %w[--timeout], %w[-n], %w[--expect-status]].map { |(flag)| check[check.index(flag), 2] }
    end

    def test_bad_transport_settings_are_one_line_each
      {%w[--transport h3] => "--transport must be one of http1, tls, h2, h2c",
       %w[--h2-streams 0] => "--h2-streams must be between 1 and 10000",
       %w[--h2-streams 4] => "--h2-streams is for --transport h2 or h2c"}.each do |flags, message|
        error = assert_raises(UsageError) { plan(*flags) }
        assert_equal message, error.message
      end
    end
  end
end
