# frozen_string_literal: true

module Arena
  # The Rack app under test: the built-in arena app running in Arena's own
  # bundle, or a user's config.ru running inside that app's bundle.
  ROOT = File.expand_path("../..", __dir__)

  AppSource = Struct.new(:rackup, :gemfile, :dir, :builtin, keyword_init: true) do
    def self.builtin
      new(rackup: File.join(ROOT, "lib/arena/app/arena.ru"), gemfile: File.join(ROOT, "Gemfile"),
        dir: ROOT, builtin: true).freeze
    end

    def self.user(path)
      rackup = File.expand_path(path)
      raise UsageError, "no such rackup file: #{path}" unless File.file?(rackup)
      dir = File.dirname(rackup)
      gemfile = File.join(dir, "Gemfile")
      raise UsageError, "#{path}: no Gemfile beside it (Arena runs the app inside its own bundle)" unless File.file?(gemfile)
      new(rackup: rackup, gemfile: gemfile, dir: dir, builtin: false).freeze
    end

    def lockfile = "#{gemfile}.lock"

    def to_h = {rackup: rackup, gemfile: gemfile, builtin: builtin}
  end
end
