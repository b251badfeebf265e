# frozen_string_literal: true

# The app under test and its bundle: the app's source, Arena's overlay, installation of servers.
require_relative "bundle/app_source"
require_relative "bundle/installation"
require_relative "bundle/app_digest"
require_relative "bundle/gem_facts"
