# frozen_string_literal: true

require "bundler"

module Arena
  module Bundle
    # Why a server's gems cannot join an app's bundle, in one line, from what
    # Bundler said or from the lock it wrote.
    module Reason
      module_function

      NETWORK = Regexp.union(
        "Could not reach host", "Could not fetch specs", "Network error", "Failed to open TCP", "getaddrinfo",
        "SocketError", "Net::OpenTimeout", "Net::ReadTimeout", "HTTPError", "SSL_connect", "Gem::RemoteFetcher",
        /Errno::E(?:CONNREFUSED|HOSTUNREACH|NETUNREACH|CONNRESET)/
      )

      def network?(output) = NETWORK.match?(output)

      # Bundler 2.3 (Molinillo) explains a conflict as
      #   Bundler could not find compatible versions for gem "rack":
      #     In snapshot (Gemfile.lock):  rack (= 2.2.22)
      #     ...  rackup was resolved to 2.3.1, which depends on
      #            rack (>= 3)
      # and 2.4+ (PubGrub) as "Because rackup >= 2 depends on rack >= 3 and ...".
      # Both become "rackup 2.3.1 needs rack >= 3, the app locks rack 2.2.22".
      def from_output(output, app_versions:)
        text = output.to_s
        # Bundler may print several conflicts (one per platform it tried):
        # the one whose requirement the app's locked version fails is the reason.
        blocks = text.split(/(?=Bundler could not find compatible versions for gem)/i)
        blocks.each do |block|
          next unless (gem = block[/could not find compatible versions for gem "([^"]+)"/i, 1])
          locked = app_versions[gem]
          need = chain_need(block, gem, locked, strict: true)
          return [need, locked && "the app locks #{gem} #{locked}"].compact.join(", ") if need
        end
        if (gem = text[/could not find compatible versions for gem "([^"]+)"/i, 1])
          locked = app_versions[gem]
          return [chain_need(text, gem, locked) || "needs another #{gem}", locked && "the app locks #{gem} #{locked}"].compact.join(", ")
        end
        if (because = text[/^Because (.+?)(?:,|\.)\s*$/, 1])
          return because.strip
        end
        if (missing = text[/Could not find gem '([^']+)'[^\n]*/])
          return missing.strip.sub(/\.\z/, "")
        end
        first_line(text)
      end

      # The servers a failed resolution names at the root of its chains.
      def named(output, gems) = gems.select { |g| output.match?(/^\s*#{Regexp.escape(g)}(?: \([^)]*\))? was resolved to/) }

      # Of Bundler's chains, the requirement on the conflicting gem that the
      # app's locked version does not meet, and the spec that has it.
      def chain_need(text, gem, locked, strict: false)
        lines = text.lines.map(&:strip)
        found = lines.each_with_index.filter_map do |line, i|
          req = line[/\A#{Regexp.escape(gem)} \(([^)]+)\)\z/, 1]
          parent = i.positive? && lines[i - 1][/\A(\S+)(?: \([^)]*\))? was resolved to (\S+), which depends on\z/]
          [$1, $2, req] if req && parent
        end
        name, version, req = found.find { |*, r| locked && !Gem::Requirement.new(r.split(", ")).satisfied_by?(Gem::Version.new(locked)) } || (strict ? nil : found.last)
        name && "#{name} #{version.chomp(",")} needs #{gem} #{req}"
      rescue ArgumentError
        nil
      end

      # A lock that resolved but moved one of the app's gems: name the gem and
      # the new spec whose requirement excludes the app's version.
      def from_lock(changed, specs, app_versions:)
        name, (old, new) = changed.first
        culprit = specs.find do |spec|
          dep = spec.dependencies.find { |d| d.name == name }
          dep && !dep.requirement.satisfied_by?(Gem::Version.new(old))
        end
        if culprit
          req = culprit.dependencies.find { |d| d.name == name }.requirement
          "#{culprit.name} #{culprit.version} needs #{name} #{req}, the app locks #{name} #{old}"
        else
          "it would change #{name} #{old} to #{new || "nothing"}"
        end
      end

      # The gem that failed to install, or Bundler's first line.
      def install_failure(text)
        text[/An error occurred while installing (\S+ \([^)]+\))/, 1]&.then { |g| "#{g} did not install" } ||
          text[/Could not find (?:gem )?'?[^\n]+ in (?:locally installed gems|any of the sources)[^\n]*/] || first_line(text)
      end

      def first_line(text)
        line = text.lines.map(&:strip).reject(&:empty?).reject { |l| l.start_with?("Fetching", "Resolving", "Writing", "Using", "Installing", "WARN", "Please report") }.first
        (line || "bundle failed without a message")[0, 200]
      end
    end
  end
end
