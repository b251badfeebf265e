# frozen_string_literal: true

require_relative "presets/presets"
