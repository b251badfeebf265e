# frozen_string_literal: true

require "bundler"

module Arena
  # Where a server comes from: a gem in the app's bundle, or a system program
  # (Debian's passenger, uwsgi, jruby). `found` false carries the reason.
  Installation = Struct.new(:found, :version, :source, :path, :why, keyword_init: true) do
    def self.missing(why) = new(found: false, why: why).freeze

    def to_h = {found: found, version: version, source: source, path: path, why: why}.compact

    # A gem counts as installed when the app's Gemfile.lock names it and its
    # files are on disk, whatever bundle Arena itself runs in.
    def self.gem(name, app)
      return missing("#{app.gemfile}.lock missing: run bundle install for the app") unless File.file?(app.lockfile)
      spec = lock_specs(app.lockfile).find { |s| s.name == name }
      return missing("gem #{name} is not in #{File.basename(app.gemfile)}") unless spec
      dir = Gem.path.map { |p| File.join(p, "gems", "#{name}-#{spec.version}") }.find { |d| File.directory?(d) }
      dir ||= Gem.path.flat_map { |p| Dir.glob(File.join(p, "gems", "#{name}-#{spec.version}-*")) }.first
      return missing("gem #{name} #{spec.version} is locked but not installed (bundle install)") unless dir
      new(found: true, version: spec.version.to_s, source: "bundle", path: dir).freeze
    end

    def self.program(path, version_argv: nil, version_pattern: /(\d+\.\d+(?:\.\d+)*)/)
      return missing("#{path} not installed") unless File.executable?(path)
      version = nil
      if version_argv
        out = IO.popen([path, *version_argv], err: [:child, :out], &:read).to_s
        version = out[version_pattern, 1]
      end
      new(found: true, version: version, source: "system", path: path).freeze
    rescue SystemCallError => e
      missing("#{path}: #{e.message}")
    end

    def self.lock_specs(lockfile)
      @lock_specs ||= {}
      @lock_specs[lockfile] ||= Bundler::LockfileParser.new(File.read(lockfile)).specs
    end
  end
end
