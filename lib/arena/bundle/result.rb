# frozen_string_literal: true

module Arena
  module Bundle
    # Where one server's gems come from for this app:
    #   app        every gem it needs is in the app's own bundle
    #   added      Arena's overlay adds them beside the app's (version: the server gem's)
    #   cannot     they cannot join without changing one of the app's gems (why)
    #   unfetched  they are not installed and no registry answered (why)
    #   system     not a gem: a program of the system (passenger, uwsgi)
    Entry = Struct.new(:server, :state, :gems, :version, :why, keyword_init: true) do
      def runnable? = %i[app added system].include?(state)

      def with(**changes) = self.class.new(**to_h.transform_keys(&:to_sym), state: state, **changes)

      def describe
        case state
        when :app then "in the app's bundle"
        when :added then "added by Arena (#{gems.first} #{version})"
        when :cannot then "cannot be added: #{why}"
        when :unfetched then "not fetched: #{why}"
        else "system program"
        end
      end

      def to_h = {"server" => server, "state" => state.to_s, "gems" => gems, "version" => version, "why" => why}.compact

      def self.from_h(h)
        new(server: h["server"], state: h["state"].to_sym, gems: h["gems"], version: h["version"], why: h["why"]).freeze
      end
    end

    # What the overlay came to. `gemfile` is the Gemfile servers run under
    # (nil when the app's own bundle has every server or none could be added).
    # `env`: what a process run under that Gemfile needs in its environment.
    Result = Struct.new(:dir, :gemfile, :entries, :reused, :seconds, :env, keyword_init: true) do
      def entry(server) = entries.find { |e| e.server == server }

      def added = entries.select { |e| e.state == :added }

      # {server key => [gem, version]} for the servers the overlay added to
      # this app's bundle ({} for an app without an overlay).
      def self.added_gems(app)
        entries = app.respond_to?(:overlay) ? app.overlay&.added.to_a : []
        entries.to_h { |e| [e.server, [e.gems.first, e.version]] }
      end

      # One line per server that cannot be added, one for everything no
      # registry could provide.
      def notes
        lines = entries.select { |e| e.state == :cannot }.map { |e| "#{e.server}: cannot be added beside this app: #{e.why}" }
        unfetched = entries.select { |e| e.state == :unfetched }
        unless unfetched.empty?
          lines << "not fetched (no registry reachable): #{unfetched.flat_map(&:gems).uniq.join(", ")}; " \
            "skipped: #{unfetched.map(&:server).join(", ")}"
        end
        lines
      end

      def to_h
        {"dir" => dir, "gemfile" => gemfile, "reused" => reused, "seconds" => seconds,
         "servers" => entries.map(&:to_h)}
      end
    end
  end
end
