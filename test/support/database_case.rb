# frozen_string_literal: true

require "open3"
require "tmpdir"

module Arena
  # For a test whose runs start a database Arena makes: the app's own bundle
  # must be installed (else the test is skipped), and no database directory
  # may be left behind by the test.
  module DatabaseCase
    def require_app_bundle(app, name)
      _, status = Open3.capture2e({"BUNDLE_GEMFILE" => File.join(app, "Gemfile")}, "bundle", "check")
      skip "the #{name} bundle is not installed (script/setup)" unless status.success?
      @pg_dirs = pg_dirs
    end

    def pg_dirs = Dir.glob(File.join(Dir.tmpdir, "arena-pg-*"))

    # A directory is left behind when the Arena that made it (its pid is in
    # the name, Dir.mktmpdir's) is gone; one of a live Arena belongs to a
    # test file running beside this one.
    def left_behind(dirs) = dirs.reject { |dir| owner_alive?(dir[/arena-pg-\d+-(\d+)-/, 1].to_i) }

    def owner_alive?(pid) = pid.positive? && Arena::System::Procfs.stat(pid)&.state.then { |state| state && state != "Z" }

    def teardown
      assert_empty left_behind(pg_dirs - @pg_dirs), "database directories left behind" if @pg_dirs
      super
    end
  end
end
