# frozen_string_literal: true

require_relative "../bundle/installation"
require_relative "base"

module Arena
  module Servers
    # Puma on JRuby: real parallel threads, no cluster (no fork on the JVM).
    # It needs JRuby and a Java build of Puma installed into JRuby's own gems
    # (`jruby -S gem install puma --platform java`): the app's Gemfile.lock is
    # resolved for MRI, so this server runs outside the app's bundle, with
    # whatever rack JRuby has (Puma's own builder when none).
    class PumaJruby < Base
      server "puma-jruby", "Puma on JRuby: threads, no cluster"

      def self.ruby_engine = "jruby"

      JRUBY = "/usr/bin/jruby"
      # One JRuby start (seconds) answers both questions.
      PROBE = 'print RUBY_VERSION, " ", JRUBY_VERSION, " ", ' \
        '(Gem::Specification.find_all_by_name("puma").select { |s| s.platform.to_s == "java" }.map(&:version).max)'

      # Puma's own file, read by the Java build of Puma under JRuby.
      def self.config_file(s, rackup:)
        text = ["# Written by Arena; Puma on JRuby reads it with `jruby -S puma -C puma.rb`.", "threads #{s["threads"]}, #{s["threads"]}",
          "port ENV.fetch(\"PORT\", 9292), ENV.fetch(\"HOST\", \"0.0.0.0\")", "environment ENV.fetch(\"RACK_ENV\", \"production\")"]
        ConfigFile.new(name: "puma.rb", text: text.join("\n") + "\n", command: [JRUBY, "-S", "puma", "-C", "puma.rb", rackup])
      end

      def self.settings
        {"threads" => ->(m) { 4 * m.default_workers }}
      end

      def self.allowed = {"threads" => 1..}

      def self.install(app)
        return Bundle::Installation.missing("#{JRUBY} not installed (apt-get install jruby)") unless File.executable?(JRUBY)
        _ruby, jruby, puma = probe
        return Bundle::Installation.missing("#{JRUBY} did not answer") unless jruby
        return Bundle::Installation.missing("no Java build of puma under JRuby #{jruby} (jruby -S gem install puma --platform java)") unless puma
        Bundle::Installation.new(found: true, version: "#{puma} (JRuby #{jruby})", source: "system", path: JRUBY).freeze
      end

      def self.probe
        @probe ||= IO.popen({"RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil}, [JRUBY, "-e", PROBE], err: File::NULL, &:read).to_s.split
      rescue SystemCallError
        @probe = []
      end

      def command(app:, bind:, dir:)
        uri = bind.uri("tcp")
        threads = settings["threads"]
        [JRUBY, "-S", "puma", "--no-config", "-e", "production", "-t", "#{threads}:#{threads}", "-b", uri,
          "--pidfile", File.join(dir, "puma.pid"), app.rackup]
      end

      # Outside the app's bundle: JRuby's own gems, not the MRI lockfile.
      def env(app:) = super.merge("BUNDLE_GEMFILE" => nil, "GEM_HOME" => nil, "GEM_PATH" => nil)

      def workers = 1

      # JRuby's JVM needs seconds to boot and more to warm up.
      def ready_timeout = 60

      # USR2 re-execs Puma in place (a hot restart); phased restarts need a
      # cluster, which JRuby cannot fork.
      def restart_mechanisms = [:hot]

      def restart(group, mechanism)
        (mechanism == :hot) ? group.signal("USR2") : :unsupported
      end
    end
  end
end
