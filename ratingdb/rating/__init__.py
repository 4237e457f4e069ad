"""rating"""
